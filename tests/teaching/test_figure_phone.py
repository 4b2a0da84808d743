"""Every public figure of teaching.figures laid out for a phone (teaching.figures.phone, issue 35 item 4): every
text 11-14 px, every panel at least PHONE_PLOT_HEIGHT px tall and as wide as the figure (panels side by side
are stacked), a colour bar under the plot, no superscript tick labels (drawn at ~9.6 px). The pixels a phone
draws are measured in tests/teaching/browser/test_devices_browser.py."""

import pytest

from teaching import figures
from teaching.figures.screens import PHONE_FONT, PHONE_PLOT_HEIGHT, PHONE_TITLE_FONT, PHONE_WIDTH, _wrap
from tests.teaching.test_figure_fonts import _public_figure_functions, _small_inputs, font_sizes, required_fonts

#: Thumbnail grids (a picture per panel, not a plot with axes): their panels stay small on any screen.
IMAGE_GRIDS = {"digits_grid", "transfer_digit_grid"}


@pytest.fixture(scope="module")
def phoned():
    return {name: (make(), figures.phone(make())) for name, make in _small_inputs().items()}


@pytest.mark.parametrize("name", sorted(_public_figure_functions()))
def test_a_phone_gets_text_of_11_to_14_px_and_panels_it_can_read(phoned, name):
    fig = phoned[name][1]
    missing = [where for where, size in required_fonts(fig).items() if size is None]
    assert not missing, f"{name}: font size left to the chart theme at {missing}"
    sizes = dict(font_sizes(fig.to_plotly_json()))
    wrong = {where: size for where, size in sizes.items() if not PHONE_FONT - 1 <= size <= PHONE_TITLE_FONT}
    assert not wrong, f"{name}: text outside 11-14 px on a phone: {wrong}"
    layout = fig.layout
    plot_height = layout.height - layout.margin.t - layout.margin.b
    for axis in [layout[a] for a in layout if a.startswith(("xaxis", "yaxis"))]:
        assert not (axis.type == "log" and axis.exponentformat == "power"), f"{name}: superscript tick labels"
    if name in IMAGE_GRIDS:
        return
    for axis_name in [a for a in layout if a.startswith("yaxis") and layout[a].overlaying is None]:
        low, high = layout[axis_name].domain or (0, 1)
        assert (high - low) * plot_height >= PHONE_PLOT_HEIGHT - 1, (name, axis_name, (high - low) * plot_height)
    for axis_name in [a for a in layout if a.startswith("xaxis") and layout[a].overlaying is None]:
        low, high = layout[axis_name].domain or (0, 1)
        assert high - low > 0.95, f"{name}: {axis_name} spans {high - low:.2f} of the width: panels side by side"
    for colorbar in figures.base._colorbars(fig):
        assert colorbar.orientation == "h", f"{name}: a colour bar at the side takes ~70 px of {PHONE_WIDTH}"
    if layout.title.text:
        longest = max(len(line) for line in layout.title.text.split("<br>"))
        assert longest * 0.55 * PHONE_TITLE_FONT <= PHONE_WIDTH, (name, layout.title.text)


def test_phone_does_not_change_the_figure_it_is_given():
    make = _small_inputs()["shift_overview"]
    fig = make()
    before = fig.to_plotly_json()
    figures.phone(fig)
    assert fig.to_plotly_json() == before


def test_a_wrapped_title_leaves_no_word_alone_on_its_last_line():
    """The KLIEP lesson's title on a phone (44 characters a line) ended in a line "2f)"; the Reproduction page's on
    the projector (36) in "seeds". The word before comes along, and no line grows past its width."""
    title = "Frank-Wolfe relative duality gap (paper Fig. 2f)"
    assert _wrap(title, 44) == "Frank-Wolfe relative duality gap (paper<br>Fig. 2f)"
    assert _wrap("Table 1 (analogue): ours over 10 seeds", 36) == "Table 1 (analogue): ours over<br>10 seeds"
    assert _wrap("Pearson r (certainty, error)", 12) == "Pearson r<br>(certainty,<br>error)"  # one word: stays
    assert _wrap("short title", 44) == "short title"
    for text, chars in ((title, 44), (title, 20), ("a bb ccc dddd eeeee ffffff", 9)):
        assert all(len(line) <= chars for line in _wrap(text, chars).split("<br>")), (text, chars)
        assert _wrap(text, chars).replace("<br>", " ") == text
