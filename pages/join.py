import streamlit as st

from teaching import lessons, polls
from teaching import ui
from teaching.ui import poll as ask

ui.through_app()
# A phone first (390 x 844): the question and big options on one screen, nothing else.
st.html("""<style>
.st-key-ballot button { min-height: 3.75rem; font-size: 1.2rem; text-align: left; }
.st-key-ballot button p { font-size: 1.2rem !important; white-space: normal; }
</style>""")

code = ui.get("poll")
if not code:
    st.title("Join a poll")
    typed = st.text_input("The code on the projector", max_chars=6, placeholder="e.g. k3m9xa")
    if typed:
        st.page_link("pages/join.py", label=f"Join poll {typed}", query_params={"poll": typed.strip().lower()},
                     icon=":material/how_to_vote:")
    st.stop()

poll = ask.student_poll(code)
if poll is None:
    st.caption("Type the code shown on the projector into the address, or scan the QR code again.")
    st.stop()
lesson = poll.lesson_obj
ask.watch(poll)

if poll.state == polls.OPEN:
    st.subheader(poll.question.text, anchor=False)

    @st.fragment
    def ballot():
        """One tap votes; a tap on another option changes the vote (this part only runs again)."""
        refused = ask.refusal()
        mine = ask.my_vote(poll)
        with st.container(key="ballot"):
            for index, option in enumerate(poll.question.options):
                st.button(option, key=f"vote.{poll.round}.{index}", width="stretch",
                          type="primary" if mine == index else "secondary",
                          icon=":material/check:" if mine == index else None,
                          on_click=ask.vote, args=(poll.id, index))
        if refused:
            st.error(refused, icon=":material/block:")
        elif mine is not None:
            st.success("Your vote is in; you can change it until your teacher reveals.",
                       icon=":material/how_to_vote:")
        else:
            st.caption(f"Tap your prediction. Round {poll.round}; your vote is anonymous.")

    ballot()
    st.stop()

# Revealed (or closed): the answer, the class's votes, and the way into the lesson.
tally = ask.public_tally(poll)
st.subheader(poll.question.text, anchor=False)
if tally is None or tally.answer is None:
    st.info("This poll is closed before its answer was revealed.", icon=":material/lock:")
else:
    mine = ask.my_vote(poll)
    verdict = ("" if mine is None else " You got it." if mine == tally.answer else
               f" You voted: {poll.question.options[mine]}.")
    st.success(f"**The answer: {poll.question.options[tally.answer]}.**{verdict}", icon=":material/check_circle:")
    st.markdown(f"**What you now see:** {lesson.reveal.sees}")
    ask.revealed_figure(lesson, poll.seed)
    st.caption(f"Measured on the revealed view (seed {poll.seed}): {tally.measured}")
    ask.show_tally(poll, tally, mark_answer=True)
st.page_link(lesson.page, label=f"Explore the lesson: {lesson.title}", icon=":material/school:",
             query_params=ask.revealed_query(lesson, poll.seed))
st.caption(f"The link opens {lessons.PAGE_TITLES[lesson.page]} at the revealed view; move its controls to "
           "see why.")
