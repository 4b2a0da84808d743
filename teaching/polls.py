"""The poll store of "Ask the class" (issue 36): polls, rounds and votes in SQL, through SQLAlchemy.

Peer instruction (Crouch and Mazur, 2001): the class predicts what a lesson's reveal will show, votes,
then sees the answer. The instructor opens a poll on a lesson (:meth:`PollStore.open_poll`) and gets a
secret token (``secrets.token_urlsafe``; only its SHA-256 is stored, compared with
``hmac.compare_digest``); the students vote with the poll's short id (the join address carries nothing
else). Only the token reveals a round, starts another, closes the poll or reads the tally before the
reveal. One vote per browser session per round: a second vote replaces the first (the primary key
(poll, round, session)). Nothing personal is stored: a vote is the option and a time; the session is
a random id of the browser session.

Every refusal is a :class:`PollError` (a ValueError) whose message is a sentence for the person who
typed the address, and writes nothing. The schema is created by the store and versioned
(table ``schema_version``). SQLite by default (a file created on first use, WAL mode, every write
transaction ``BEGIN IMMEDIATE`` so that 40 voters queue instead of failing); PostgreSQL by one URL
(:func:`database_url`). This module never imports streamlit (the app's glue: ``teaching/ui/poll.py``).
"""

import collections
import csv
import datetime
import functools
import hashlib
import hmac
import io
import os
import pathlib
import re
import secrets
import threading
import time
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from teaching import lessons, settings

#: The version of the schema this code writes; the ``schema_version`` table holds the one a database has.
SCHEMA_VERSION = 1
#: Longest text any argument may be (a poll id is 6 characters, a token 32, a session id at most 64).
MAX_FIELD = 200
POLL_ID_ALPHABET, POLL_ID_LENGTH = settings.POLL_CODE_ALPHABET, settings.POLL_CODE_LENGTH
_POLL_ID = re.compile(settings.POLL_CODE)
TOKEN_BYTES = 24  # secrets.token_urlsafe(24): 32 characters
_TOKEN = re.compile(settings.POLL_KEY)
_SESSION = re.compile(r"[A-Za-z0-9_-]{8,64}")
#: At most this many votes from one browser session within this many seconds (a flood is refused).
RATE_LIMIT = (8, 30.0)
OPEN, REVEALED, CLOSED = "open", "revealed", "closed"

metadata = sa.MetaData()
schema_version = sa.Table(
    "schema_version", metadata,
    sa.Column("version", sa.Integer, primary_key=True),
    sa.Column("applied", sa.Float, nullable=False))
polls = sa.Table(
    "polls", metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column("lesson", sa.String(64), nullable=False),
    sa.Column("seed", sa.Integer, nullable=False),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("state", sa.String(10), nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=False),
    sa.Column("created", sa.Float, nullable=False))
rounds = sa.Table(
    "rounds", metadata,
    sa.Column("poll", sa.String(16), sa.ForeignKey("polls.id"), primary_key=True),
    sa.Column("round", sa.Integer, primary_key=True),
    sa.Column("opened", sa.Float, nullable=False),
    sa.Column("revealed", sa.Float),
    sa.Column("answer", sa.Integer),
    sa.Column("measured", sa.String(500)))
votes = sa.Table(
    "votes", metadata,
    sa.Column("poll", sa.String(16), primary_key=True),
    sa.Column("round", sa.Integer, primary_key=True),
    sa.Column("session", sa.String(64), primary_key=True),
    sa.Column("option", sa.Integer, nullable=False),
    sa.Column("time", sa.Float, nullable=False),
    sa.ForeignKeyConstraint(["poll", "round"], ["rounds.poll", "rounds.round"]))


class PollError(ValueError):
    """A refused request: the message is one sentence for the person who sent it; nothing was written."""


def reachable(method):
    """``method`` with a database that cannot be reached (or fails) turned into a PollError sentence: its
    transaction was rolled back, so nothing was written."""
    @functools.wraps(method)
    def call(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except sa.exc.SQLAlchemyError as error:
            raise PollError(f"The poll database cannot be reached right now ({type(error).__name__}); nothing was "
                            "written: try again in a moment.") from error
    return call


@dataclass(frozen=True)
class Poll:
    """One poll: its lesson (key) and the seed of the instructor's view, the current round and its state."""

    id: str
    lesson: str
    seed: int
    round: int
    state: str
    created: float

    @property
    def lesson_obj(self):
        return lesson_by_key(self.lesson)

    @property
    def question(self):
        return self.lesson_obj.question


@dataclass(frozen=True)
class Tally:
    """Votes per option of one round; ``answer``/``measured`` once the round was revealed, else None."""

    poll: Poll
    round: int
    counts: tuple
    answer: int = None
    measured: str = None

    @property
    def total(self):
        return sum(self.counts)


def lesson_by_key(key):
    """The lesson whose key is ``key``, with a question; a PollError otherwise."""
    for lesson in lessons.LESSONS.values():
        if lesson.key == key and lesson.question is not None:
            return lesson
    raise PollError(f"There is no lesson {str(key)[:40]!r} with a question to ask.")


def database_url(environ=None, secret_url=None):
    """The poll database: ``COVSHIFT_POLL_URL`` (e.g. ``postgresql+psycopg://user@host/db``), else the
    ``url`` of ``[connections.polls]`` in .streamlit/secrets.toml (``secret_url``), else a SQLite file at
    ``COVSHIFT_POLL_DB`` (default ``~/.covshift/polls.sqlite``), its folder created on first use."""
    environ = os.environ if environ is None else environ
    if environ.get("COVSHIFT_POLL_URL"):
        return environ["COVSHIFT_POLL_URL"]
    if secret_url:
        return str(secret_url)
    path = pathlib.Path(environ.get("COVSHIFT_POLL_DB") or pathlib.Path.home() / ".covshift" / "polls.sqlite")
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path.resolve()}"


def _on_connect(dbapi_connection, _record):
    dbapi_connection.isolation_level = None  # SQLAlchemy's begin event (below) issues BEGIN
    cursor = dbapi_connection.cursor()
    for pragma in ("journal_mode=WAL", "busy_timeout=30000", "synchronous=NORMAL", "foreign_keys=ON"):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()


def _on_begin(connection):
    reading = connection.get_execution_options().get("covshift_read")
    connection.exec_driver_sql("BEGIN" if reading else "BEGIN IMMEDIATE")


def prepare_engine(engine):
    """Make ``engine`` fit for concurrent voters (idempotent). SQLite: WAL mode, a 30 s busy timeout and
    ``BEGIN IMMEDIATE`` for write transactions (a deferred transaction that reads, then writes, fails at
    once in WAL mode when another writer came first; an immediate one waits its turn), by connect and
    begin events; connections made before are dropped."""
    if engine.dialect.name == "sqlite" and not sa.event.contains(engine, "connect", _on_connect):
        sa.event.listen(engine, "connect", _on_connect)
        sa.event.listen(engine, "begin", _on_begin)
        engine.dispose()
    return engine


def _hash(token):
    return hashlib.sha256(token.encode()).hexdigest()


def _field(name, value, pattern, what):
    """``value`` as a checked string: a PollError naming ``name`` if it is too long or malformed."""
    if not isinstance(value, str):
        raise PollError(f"The {name} must be text, not {type(value).__name__}.")
    if len(value) > MAX_FIELD:
        raise PollError(f"The {name} is {len(value)} characters long; {what} is at most {MAX_FIELD}: "
                        "check the address.")
    if not pattern.fullmatch(value):
        raise PollError(f"The {name} {value[:40]!r} is not {what}: check the address.")
    return value


class RateLimit:
    """At most ``count`` events per key within ``seconds`` (in this process: a browser session stays on
    one server, sticky sessions behind nginx). Bounded: forgets the oldest keys past ``keys``."""

    def __init__(self, count, seconds, clock=time.monotonic, keys=50_000):
        self.count, self.seconds, self.clock, self.keys = count, seconds, clock, keys
        self.events = collections.OrderedDict()
        self.lock = threading.Lock()

    def admit(self, key):
        """Count one event of ``key``; the seconds to wait if it is over the limit, else 0."""
        with self.lock:
            now = self.clock()
            times = self.events.pop(key, collections.deque())
            while times and now - times[0] >= self.seconds:
                times.popleft()
            self.events[key] = times
            if len(self.events) > self.keys:
                self.events.popitem(last=False)
            if len(times) >= self.count:
                return self.seconds - (now - times[0])
            times.append(now)
            return 0.0


class PollStore:
    """Polls and votes in the database of ``engine`` (SQLAlchemy; the app's comes from ``st.connection``).

    Parameters
    ----------
    engine : sqlalchemy.engine.Engine
        SQLite or PostgreSQL (``postgresql+psycopg``); :func:`prepare_engine` is applied.
    clock : callable
        Seconds since the epoch (the votes' and rounds' times).
    rate_limit : (int, float)
        At most this many votes per browser session within this many seconds.
    """

    def __init__(self, engine, clock=time.time, rate_limit=RATE_LIMIT):
        self.engine = prepare_engine(engine)
        self.clock = clock
        self.rate = RateLimit(*rate_limit)
        self.create_schema()

    # ------------------------------------------------------------------ schema
    def create_schema(self):
        """Create the tables if missing and record the schema version (concurrent servers: serialised by
        PostgreSQL's advisory lock, SQLite's immediate transaction). A newer database is refused."""
        with self.engine.begin() as connection:
            if self.engine.dialect.name == "postgresql":
                connection.execute(sa.text("SELECT pg_advisory_xact_lock(36036)"))
            metadata.create_all(connection)
            found = connection.execute(sa.select(sa.func.max(schema_version.c.version))).scalar()
            if found is None:
                connection.execute(schema_version.insert().values(version=SCHEMA_VERSION, applied=self.clock()))
            elif found > SCHEMA_VERSION:
                raise RuntimeError(f"The poll database has schema version {found}, newer than this app's "
                                   f"{SCHEMA_VERSION}: update the app, or point COVSHIFT_POLL_URL elsewhere.")

    @reachable
    def version(self):
        with self._reading() as connection:
            return connection.execute(sa.select(sa.func.max(schema_version.c.version))).scalar()

    def _reading(self):
        return self.engine.connect().execution_options(covshift_read=True)

    # ------------------------------------------------------------------ the instructor
    @reachable
    def open_poll(self, lesson_key, seed):
        """A new poll on the lesson ``lesson_key`` (its view's ``seed``), round 1 open: (poll id, token).
        The token is shown once to the instructor; only its hash is stored."""
        lesson = lesson_by_key(lesson_key)
        token, now = secrets.token_urlsafe(TOKEN_BYTES), self.clock()
        for _ in range(8):
            poll_id = "".join(secrets.choice(POLL_ID_ALPHABET) for _ in range(POLL_ID_LENGTH))
            try:
                with self.engine.begin() as connection:
                    connection.execute(polls.insert().values(
                        id=poll_id, lesson=lesson.key, seed=int(seed), round=1, state=OPEN, token_hash=_hash(token),
                        created=now))
                    connection.execute(rounds.insert().values(poll=poll_id, round=1, opened=now))
                return poll_id, token
            except sa.exc.IntegrityError:  # the id was taken: draw another
                continue
        raise RuntimeError("Could not find a free poll id in 8 draws.")

    @reachable
    def reveal(self, poll_id, token, answer, measured=""):
        """Close the current round's voting and record its right option (``answer``, an index, decided on
        the revealed view by the caller) and what was measured."""
        with self.engine.begin() as connection:
            poll = self._controlled(connection, poll_id, token, lock="update")
            if poll.state != OPEN:
                raise PollError(f"Round {poll.round} of this poll is already {poll.state}.")
            if not 0 <= int(answer) < len(poll.question.options):
                raise PollError(f"The answer {answer} is not an option of the question.")
            connection.execute(polls.update().where(polls.c.id == poll.id).values(state=REVEALED))
            connection.execute(rounds.update().where((rounds.c.poll == poll.id) & (rounds.c.round == poll.round))
                               .values(revealed=self.clock(), answer=int(answer), measured=str(measured)[:500]))
        return self.get(poll_id)

    @reachable
    def ask_again(self, poll_id, token):
        """Start the next round (after peer discussion): voting open again, every browser votes afresh."""
        with self.engine.begin() as connection:
            poll = self._controlled(connection, poll_id, token, lock="update")
            if poll.state == CLOSED:
                raise PollError("This poll is closed: ask the class anew.")
            connection.execute(polls.update().where(polls.c.id == poll.id).values(round=poll.round + 1, state=OPEN))
            connection.execute(rounds.insert().values(poll=poll.id, round=poll.round + 1, opened=self.clock()))
        return self.get(poll_id)

    @reachable
    def close(self, poll_id, token):
        """End the poll (the instructor moves on): no more votes, no more rounds."""
        with self.engine.begin() as connection:
            poll = self._controlled(connection, poll_id, token, lock="update")
            connection.execute(polls.update().where(polls.c.id == poll.id).values(state=CLOSED))
        return self.get(poll_id)

    def _controlled(self, connection, poll_id, token, lock=None):
        """The poll ``poll_id`` if ``token`` is its instructor's token (constant-time comparison of the
        hashes), else a PollError; ``lock="update"`` locks its row for the transaction (PostgreSQL)."""
        token = _field("instructor key", token, _TOKEN, "an instructor key")
        poll, stored = self._poll(connection, poll_id, lock, with_hash=True)
        if not hmac.compare_digest(_hash(token), stored):
            raise PollError("This address's instructor key does not belong to this poll: only the teacher's "
                            "address controls it. Students vote on the join address.")
        return poll

    @reachable
    def is_instructor(self, poll_id, token):
        """True when ``token`` controls ``poll_id`` (checked as :meth:`reveal` checks it), else False."""
        try:
            with self._reading() as connection:
                self._controlled(connection, poll_id, token)
            return True
        except PollError:
            return False

    # ------------------------------------------------------------------ everyone
    @reachable
    def get(self, poll_id):
        """The poll ``poll_id``; a PollError if the id is malformed or unknown."""
        with self._reading() as connection:
            return self._poll(connection, poll_id)

    def _poll(self, connection, poll_id, lock=None, with_hash=False):
        """The Poll (and its token's hash if ``with_hash``); ``lock``: None, "share" (a vote: a reveal waits
        for the votes under way, which do not wait for each other) or "update" (PostgreSQL row locks; SQLite's
        write transactions are serialised anyway)."""
        poll_id = _field("poll code", poll_id, _POLL_ID, f"a poll code ({POLL_ID_LENGTH} letters and digits)")
        query = sa.select(polls.c.id, polls.c.lesson, polls.c.seed, polls.c.round, polls.c.state, polls.c.created,
                          polls.c.token_hash).where(polls.c.id == poll_id)
        if lock and self.engine.dialect.name == "postgresql":
            query = query.with_for_update(read=lock == "share")
        row = connection.execute(query).one_or_none()
        if row is None:
            raise PollError(f"There is no poll {poll_id!r}: check the code on the projector.")
        poll = Poll(*row[:6])
        return (poll, row[6]) if with_hash else poll

    @reachable
    def vote(self, poll_id, session, option):
        """Record ``session``'s vote for ``option`` (an index) in the current round (replacing its earlier
        vote of the round); the Poll. Refused with a sentence: unknown or malformed poll, voting closed,
        an option that is not the question's, a malformed session id, a flood from one session."""
        session = _field("browser session id", session, _SESSION, "a session id")
        if isinstance(option, bool) or not isinstance(option, int):
            raise PollError(f"The option must be an option's number, not {str(option)[:40]!r}.")
        with self.engine.begin() as connection:
            poll = self._poll(connection, poll_id, lock="share")
            if poll.state == REVEALED:
                raise PollError("Voting is over: your teacher has revealed the answer.")
            if poll.state == CLOSED:
                raise PollError("This poll is closed.")
            if not 0 <= option < len(poll.question.options):
                raise PollError(f"Option {option} is not one of this question's {len(poll.question.options)} options.")
            wait = self.rate.admit((poll.id, session))
            if wait:
                raise PollError(f"Too many votes from this browser in a short time: wait {wait:.0f} s, then tap "
                                "again.")
            dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
            row = dict(poll=poll.id, round=poll.round, session=session, option=option, time=self.clock())
            statement = dialect.insert(votes).values(**row)
            connection.execute(statement.on_conflict_do_update(
                index_elements=["poll", "round", "session"], set_={"option": option, "time": row["time"]}))
        return poll

    @reachable
    def my_vote(self, poll_id, session):
        """``session``'s option in the current round, or None."""
        with self._reading() as connection:
            poll = self._poll(connection, poll_id)
            return connection.execute(sa.select(votes.c.option).where(
                (votes.c.poll == poll.id) & (votes.c.round == poll.round) & (votes.c.session == session))).scalar()

    @reachable
    def tally(self, poll_id, token=None, round=None):
        """Votes per option of ``round`` (default: the current one). Before that round is revealed only the
        instructor's ``token`` reads it: a PollError otherwise."""
        with self._reading() as connection:
            poll = self._poll(connection, poll_id)
            round = poll.round if round is None else int(round)
            revealed, answer, measured = connection.execute(sa.select(rounds.c.revealed, rounds.c.answer,
                                                                      rounds.c.measured).where(
                (rounds.c.poll == poll.id) & (rounds.c.round == round))).one_or_none() or (None, None, None)
            if revealed is None:
                if token is None:
                    raise PollError("The votes are shown when your teacher reveals the answer.")
                self._controlled(connection, poll.id, token)
            counted = dict(connection.execute(
                sa.select(votes.c.option, sa.func.count()).where((votes.c.poll == poll.id) & (votes.c.round == round))
                .group_by(votes.c.option)).all())
        counts = tuple(int(counted.get(i, 0)) for i in range(len(poll.question.options)))
        return Tally(poll, round, counts, answer, measured)

    # ------------------------------------------------------------------ after class
    @reachable
    def results_csv(self, controlled):
        """The tallies of every round of the polls ``controlled`` ([(poll id, token)], the instructor's
        session), as CSV text: lesson, question, round, option, votes, right (yes/no, once revealed), time
        (UTC, when the round was revealed; empty while open). Nothing personal."""
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["lesson", "question", "round", "option", "votes", "right", "time"])
        for poll_id, token in controlled:
            poll = self.get(poll_id)
            with self._reading() as connection:
                self._controlled(connection, poll.id, token)
            for round in range(1, poll.round + 1):
                tally = self.tally(poll.id, token, round)
                with self._reading() as connection:
                    revealed = connection.execute(sa.select(rounds.c.revealed).where(
                        (rounds.c.poll == poll.id) & (rounds.c.round == round))).scalar()
                when = ("" if revealed is None else
                        datetime.datetime.fromtimestamp(revealed, datetime.timezone.utc).isoformat(timespec="seconds"))
                for index, (option, count) in enumerate(zip(poll.question.options, tally.counts)):
                    right = "" if tally.answer is None else ("yes" if index == tally.answer else "no")
                    writer.writerow([poll.lesson_obj.title, poll.question.text, round, option, count, right, when])
        return out.getvalue()


def new_session_id():
    """A random id of one browser session (nothing about the person)."""
    return secrets.token_urlsafe(18)
