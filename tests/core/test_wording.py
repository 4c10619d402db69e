"""The wording helpers: counts with nouns and operation counters that do not read as failures."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mcb.wording import dimensions, plural, positions_written


def test_plural_picks_the_form_a_person_expects():
    assert plural(1, "state") == "1 state"
    assert plural(2, "state") == "2 states"
    assert plural(0, "file") == "0 files"
    assert plural(1, "entry", "entries") == "1 entry" and plural(3, "entry", "entries") == "3 entries"
    assert plural(2, "property") == "2 properties"


def test_a_size_reads_one_way_everywhere():
    # Before: "51×31×51" in `mcb asset list`, `mcb export`, `mcb recipe`, "51 x 31 x 51" in `mcb schem info`.
    assert dimensions(51, 31, 51) == "51 x 31 x 51"
    assert dimensions(320, 180) == "320 x 180"
    assert dimensions(70000, 1, 1) == "70,000 x 1 x 1"


def test_no_output_writes_a_size_its_own_way():
    """Sizes in words go through :func:`mcb.wording.dimensions`: no f-string puts "x" or "×" between two values
    (item counts such as "sign x352" and stacks such as "78 x 64" are not sizes)."""
    import re
    from pathlib import Path

    import mcb

    own = re.compile(r"\}( ?)[x×]\1\{|[x×] ?[\"']\.join")
    counts_not_sizes = {"materials.py": "{stacks:,} x {size}", "wording.py": "for side in sides"}  # and the helper
    found = []
    for path in Path(mcb.__file__).resolve().parent.rglob("*.py"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if own.search(line) and counts_not_sizes.get(path.name, "\0") not in line:
                found.append(f"{path.name}:{number}: {line.strip()}")
    assert found == []


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


@given(st.lists(st.integers(1, 10**7), min_size=0, max_size=12), st.integers(0, 6))
def test_a_tally_says_what_it_leaves_out_so_its_counts_add_up(counts, shown):
    """Counted back from the text: the listed counts and "N more of K other ids" add up to the whole."""
    import re

    from mcb.wording import tally

    pairs = [(f"id{i}", n) for i, n in enumerate(counts)]
    text = tally(pairs, shown)
    listed = [int(n.replace(",", "")) for n in re.findall(r" x(\d{1,3}(?:,\d{3})*)", text)]
    rest = re.search(r" and ([\d,]+) more of ([\d,]+) other ids?$", text)
    assert listed == counts[:shown]
    if len(counts) > shown:
        assert rest and int(rest.group(1).replace(",", "")) == sum(counts[shown:])
        assert int(rest.group(2)) == len(counts) - shown
    else:
        assert rest is None and "more" not in text
    assert all(re.fullmatch(r"\d{1,3}(,\d{3})*", n) for n in re.findall(r"[\d,]*\d", text.replace("id", "#")))


def test_a_list_cut_short_says_how_many_it_left_out():
    from mcb.wording import listed

    assert listed(["a", "b", "c", "d"], 2) == "a, b and 2 more"
    assert listed(["a", "b"], 2) == "a, b"
    assert listed(map(str, range(1500)), 1, "others") == "0 and 1,499 others"


def test_a_key_value_count_has_thousands_separators(capsys):
    """`term.kv` shows an integer value as a count (`max plan blocks: 4,096`), text as it is."""
    import numpy as np

    from mcb.terminal import Terminal

    Terminal(no_color=True).kv([("blocks", 54273), ("cells", np.int64(2770852)), ("flag", True), ("text", "4096")])
    assert capsys.readouterr().out.splitlines() == [
        "blocks: 54,273",
        "cells:  2,770,852",
        "flag:   True",
        "text:   4096",
    ]


def test_a_progress_lines_percent_is_its_own_counts_ratio():
    # Before: the percent was the operation's phase-weighted fraction: "0 of 49 positions written (25%)" after the
    # preflight, "4,096 of 54,283 positions written (6%)", "46,091 of 49,419 (100%)" during the audit.
    from mcb.client.progress import ProgressView
    from mcb.wording import progress_line

    def line(written, total, done):
        return progress_line(ProgressView(done=done, total=total, written=written, phase="writing"))

    assert line(0, 49, 12.25) == "writing, 0 of 49 positions written (0%)"
    assert line(4096, 54283, 3000) == "writing, 4,096 of 54,283 positions written (7%)"
    assert line(8704, 54283, 9300) == "writing, 8,704 of 54,283 positions written (16%)"
    assert line(46091, 49419, 49400) == "writing, 46,091 of 49,419 positions written (93%)"
    assert line(49418, 49419, 49419) == "writing, 49,418 of 49,419 positions written (99%)"
    assert line(49419, 49419, 49419) == "writing, 49,419 of 49,419 positions written (100%)"


@given(st.integers(0, 10**8), st.integers(1, 10**8), st.floats(0, 1))
def test_the_percent_agrees_with_the_counts_shown(written, total, fraction):
    import re
    from fractions import Fraction

    from mcb.client.progress import ProgressView
    from mcb.wording import progress_line

    written = min(written, total)
    text = progress_line(ProgressView(done=fraction * total, total=total, written=written))
    shown, of, percent = re.search(r"([\d,]+) of ([\d,]+) positions? written \((\d+)%\)", text).groups()
    ratio = Fraction(int(shown.replace(",", "")), int(of.replace(",", "")))  # exact: 29 of 100 is 29%, not 28
    assert int(percent) <= 100 * ratio < int(percent) + 1
    assert (percent == "100") == (written == total)
    assert ("position written" in text) == (total == 1)  # "1 of 1 position written"
