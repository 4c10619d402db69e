"""The wording helpers: counts with nouns and operation counters that do not read as failures."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mcb.wording import plural, positions_written


def test_plural_picks_the_form_a_person_expects():
    assert plural(1, "state") == "1 state"
    assert plural(2, "state") == "2 states"
    assert plural(0, "file") == "0 files"
    assert plural(1, "entry", "entries") == "1 entry" and plural(3, "entry", "entries") == "3 entries"
    assert plural(2, "property") == "2 properties"


def test_a_finished_apply_with_matching_positions_says_so():
    assert positions_written(654, 656, 656) == "654 of 656 positions written, 2 already matched"
    assert positions_written(27, 27, 27) == "27 of 27 positions written"
    assert positions_written(0, 5, 5) == "0 of 5 positions written, 5 already matched"


def test_an_unfinished_operation_names_what_is_left():
    assert positions_written(163, 172, 165) == "163 of 172 positions written, 2 already matched, 7 not reached"
    assert positions_written(163, 172) == "163 of 172 positions written"  # no cursor known: no guess


@given(st.integers(0, 10_000), st.integers(0, 10_000), st.integers(0, 10_000))
def test_the_numbers_in_the_sentence_add_up(written, skipped, left):
    processed = written + skipped
    total = processed + left
    text = positions_written(written, total, processed)
    assert text.startswith(f"{written:,} of {total:,} position")
    assert (f"{skipped:,} already matched" in text) == (skipped > 0)
    assert (f"{left:,} not reached" in text) == (left > 0)
    assert "/" not in text
