"""The poll store of "Ask the class" (teaching/polls.py, issue 36) on SQLite and on PostgreSQL: votes are kept
(also across a restart of the store and of the database server), every bad request is refused with a sentence
and writes nothing, only the instructor's token controls a poll, 40 concurrent voters lose no vote."""

import csv
import importlib.util
import io
import pathlib
import threading

import pytest
import sqlalchemy as sa

from teaching import lessons, polls

ROOT = pathlib.Path(__file__).resolve().parents[2]
WHY = lessons.LESSONS["Why weights"]


def _postgres_module():
    spec = importlib.util.spec_from_file_location("postgres", ROOT / "deploy" / "postgres.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def postgres_server():
    module = _postgres_module()
    try:
        server = module.LocalPostgres().__enter__()
    except module.PostgresUnavailable as why:
        pytest.skip(str(why))
    yield server
    server.__exit__()


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path):
    """A fresh database's URL: a SQLite file, or a new database on the module's PostgreSQL server."""
    if request.param == "sqlite":
        return polls.database_url({"COVSHIFT_POLL_DB": str(tmp_path / "sub" / "polls.sqlite")})
    server = request.getfixturevalue("postgres_server")
    name = f"t{abs(hash(request.node.name)) % 10**9}"
    admin = sa.create_engine(server.url.rsplit("/", 1)[0] + "/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f"DROP DATABASE IF EXISTS {name}"))
        connection.execute(sa.text(f"CREATE DATABASE {name}"))
    admin.dispose()
    return server.url.rsplit("/", 1)[0] + "/" + name


def _store(url, **kwargs):
    return polls.PollStore(sa.create_engine(url), **kwargs)


def _session(i):
    return f"session-{i:04d}"


def test_the_database_url_sqlite_by_default_postgres_by_one_url(tmp_path):
    path = tmp_path / "new" / "polls.sqlite"
    assert polls.database_url({"COVSHIFT_POLL_DB": str(path)}) == f"sqlite:///{path}"
    assert path.parent.is_dir()  # created on first use
    assert polls.database_url({"COVSHIFT_POLL_URL": "postgresql+psycopg://u@h/db"}) == "postgresql+psycopg://u@h/db"
    assert polls.database_url({}, secret_url="postgresql+psycopg://s@h/db") == "postgresql+psycopg://s@h/db"


def test_sqlite_is_created_on_first_use_in_wal_mode(tmp_path):
    url = polls.database_url({"COVSHIFT_POLL_DB": str(tmp_path / "polls.sqlite")})
    store = _store(url)
    assert (tmp_path / "polls.sqlite").exists()
    with store.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    assert store.version() == polls.SCHEMA_VERSION


def test_a_poll_counts_one_vote_per_session_and_round_and_a_second_vote_replaces_the_first(database):
    store = _store(database)
    poll_id, token = store.open_poll(WHY.key, seed=1)
    assert len(poll_id) == polls.POLL_ID_LENGTH and token not in poll_id
    store.vote(poll_id, _session(1), 0)
    store.vote(poll_id, _session(2), 1)
    store.vote(poll_id, _session(1), 2)  # changes their mind
    assert store.tally(poll_id, token).counts == (0, 1, 1)
    assert store.my_vote(poll_id, _session(1)) == 2
    revealed = store.reveal(poll_id, token, answer=1, measured="MAE no weights: 0.1")
    assert revealed.state == polls.REVEALED
    after = store.tally(poll_id)  # anyone reads a revealed round
    assert (after.counts, after.answer, after.measured) == ((0, 1, 1), 1, "MAE no weights: 0.1")
    second = store.ask_again(poll_id, token)
    assert (second.round, second.state) == (2, polls.OPEN)
    store.vote(poll_id, _session(1), 1)
    assert store.tally(poll_id, token).counts == (0, 1, 0)
    assert store.tally(poll_id, round=1).counts == (0, 1, 1)  # round 1 is kept


def test_votes_survive_a_restart_of_the_store(database):
    store = _store(database)
    poll_id, token = store.open_poll(WHY.key, seed=0)
    for i in range(5):
        store.vote(poll_id, _session(i), i % 3)
    store.engine.dispose()
    again = _store(database)  # a new server process: a new engine on the same database
    assert again.tally(poll_id, token).counts == (2, 2, 1)
    assert again.version() == polls.SCHEMA_VERSION


def test_votes_survive_a_restart_of_the_postgresql_server(postgres_server):
    store = _store(postgres_server.url)
    poll_id, token = store.open_poll(WHY.key, seed=0)
    store.vote(poll_id, _session(1), 1)
    store.engine.dispose()
    postgres_server.stop()
    postgres_server.start()
    assert _store(postgres_server.url).tally(poll_id, token).counts == (0, 1, 0)


def _refused(call, *words):
    with pytest.raises(polls.PollError) as refusal:
        call()
    message = str(refusal.value)
    assert message.endswith(".") and all(word in message for word in words), message
    return message


def _stored_votes(store):
    with store.engine.connect() as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(polls.votes)).scalar()


def test_bad_votes_are_refused_with_a_sentence_and_write_nothing(database):
    store = _store(database)
    poll_id, token = store.open_poll(WHY.key, seed=0)
    store.vote(poll_id, _session(1), 0)
    _refused(lambda: store.vote("zzzzzz", _session(2), 0), "no poll", "zzzzzz")
    _refused(lambda: store.vote("ZZ<b>", _session(2), 0), "poll code", "check the address")
    _refused(lambda: store.vote(poll_id, _session(2), 3), "Option 3", "3 options")
    _refused(lambda: store.vote(poll_id, _session(2), -1), "Option -1")
    _refused(lambda: store.vote(poll_id, _session(2), "1"), "option")
    _refused(lambda: store.vote(poll_id, "x" * 10_240, 0), "10240 characters", "session id")
    _refused(lambda: store.vote("a" * 10_240, _session(2), 0), "10240 characters", "poll code")
    _refused(lambda: store.vote(poll_id, "no spaces allowed", 0), "session id")
    assert _stored_votes(store) == 1
    store.reveal(poll_id, token, 1)
    _refused(lambda: store.vote(poll_id, _session(2), 0), "revealed")
    store.close(poll_id, token)
    _refused(lambda: store.vote(poll_id, _session(2), 0), "closed")
    _refused(lambda: store.ask_again(poll_id, token), "closed")
    assert _stored_votes(store) == 1


def test_only_the_token_controls_a_poll_or_reads_it_before_the_reveal(database):
    store = _store(database)
    poll_id, token = store.open_poll(WHY.key, seed=0)
    other_id, other_token = store.open_poll(WHY.key, seed=0)
    store.vote(poll_id, _session(1), 0)
    wrong = other_token  # well formed, another poll's
    for attempt in (lambda t: store.reveal(poll_id, t, 1), lambda t: store.ask_again(poll_id, t),
                    lambda t: store.close(poll_id, t), lambda t: store.tally(poll_id, t)):
        _refused(lambda: attempt(wrong), "only the teacher's address")
        _refused(lambda: attempt("not-a-token"), "instructor key", "check the address")
        _refused(lambda: attempt("A" * 10_240), "10240 characters")
    _refused(lambda: store.tally(poll_id), "when your teacher reveals")
    assert not store.is_instructor(poll_id, wrong) and store.is_instructor(poll_id, token)
    assert store.get(poll_id).state == polls.OPEN and store.get(poll_id).round == 1
    with store.engine.connect() as connection:
        stored = connection.execute(sa.select(polls.polls.c.token_hash).where(polls.polls.c.id == poll_id)).scalar()
    assert token not in stored and len(stored) == 64  # only the hash is kept


def test_a_flood_of_votes_from_one_session_is_rate_limited(database):
    clock = [1000.0]
    store = _store(database)
    store.rate = polls.RateLimit(3, 30.0, clock=lambda: clock[0])
    poll_id, token = store.open_poll(WHY.key, seed=0)
    for option in (0, 1, 2):
        store.vote(poll_id, _session(1), option)
    _refused(lambda: store.vote(poll_id, _session(1), 0), "Too many votes", "wait 30 s")
    store.vote(poll_id, _session(2), 0)  # another student is not held up
    assert store.tally(poll_id, token).counts == (1, 0, 1)  # the refused vote did not replace the last one
    clock[0] += 31
    store.vote(poll_id, _session(1), 0)
    assert store.tally(poll_id, token).counts == (2, 0, 0)


def test_forty_concurrent_voters_lose_no_vote(database):
    store = _store(database)
    poll_id, token = store.open_poll(WHY.key, seed=0)
    start, errors = threading.Barrier(40), []

    def voter(i):
        try:
            start.wait(30)
            store.vote(poll_id, _session(i), i % 3)
            store.vote(poll_id, _session(i), (i + 1) % 3)  # and changes their mind at once
        except Exception as error:  # counted below: any error fails the test
            errors.append(repr(error))

    threads = [threading.Thread(target=voter, args=(i,)) for i in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors[:3]
    expected = tuple(sum(1 for i in range(40) if (i + 1) % 3 == k) for k in range(3))
    assert store.tally(poll_id, token).counts == expected and sum(expected) == 40
    assert _stored_votes(store) == 40


def test_the_csv_after_class_has_every_round_and_nothing_personal(database):
    store = _store(database)
    poll_id, token = store.open_poll(WHY.key, seed=2)
    for i in range(4):
        store.vote(poll_id, _session(i), i % 2)
    store.reveal(poll_id, token, 1)
    store.ask_again(poll_id, token)
    store.vote(poll_id, _session(0), 1)
    text = store.results_csv([(poll_id, token)])
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == ["lesson", "question", "round", "option", "votes", "right", "time"]
    assert [(r["round"], r["option"], r["votes"], r["right"]) for r in rows] == [
        ("1", WHY.question.options[0], "2", "no"), ("1", WHY.question.options[1], "2", "yes"),
        ("1", WHY.question.options[2], "0", "no"), ("2", WHY.question.options[0], "0", ""),
        ("2", WHY.question.options[1], "1", ""), ("2", WHY.question.options[2], "0", "")]
    assert {r["lesson"] for r in rows} == {"Why weights"} and rows[0]["question"] == WHY.question.text
    assert rows[0]["time"].endswith("+00:00") and rows[3]["time"] == ""
    assert "session" not in text and token not in text
    _refused(lambda: store.results_csv([(poll_id, "B" * 32)]), "only the teacher's address")


def test_a_newer_database_schema_is_refused(tmp_path):
    url = polls.database_url({"COVSHIFT_POLL_DB": str(tmp_path / "polls.sqlite")})
    store = _store(url)
    with store.engine.begin() as connection:
        connection.execute(polls.schema_version.insert().values(version=polls.SCHEMA_VERSION + 1, applied=0.0))
    with pytest.raises(RuntimeError, match="newer than this app's"):
        _store(url)


def test_only_lessons_with_a_question_can_be_polled(database):
    store = _store(database)
    without = next((lesson for lesson in lessons.LESSONS.values() if lesson.question is None), None)
    _refused(lambda: store.open_poll("no-such-lesson", 0), "no lesson")
    if without is not None:
        _refused(lambda: store.open_poll(without.key, 0), "no lesson")
