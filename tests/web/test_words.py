"""Plain words for the judge's figures."""

from __future__ import annotations

from web.words import bounce_words, herd_line_words, margin_rows, requirement_words


def test_herd_line_distance_is_signed_in_words():
    assert herd_line_words(-12.4) == "12 mm over the line"
    assert herd_line_words(40.2) == "40 mm behind the line"
    assert herd_line_words(0.3) == "on the line"
    assert herd_line_words(None) == "no herd line known"


def test_bounces_counted_against_what_the_launch_needs():
    assert bounce_words(1, 1) == "1 bounce, needs 1"
    assert bounce_words(0, 2) == "0 bounces, needs 2"
    assert requirement_words({"dinosaur": "velociraptor", "difficulty": "hard"}, 2) == (
        "velociraptor card (hard): needs 2 table bounces before the box")
    assert requirement_words(None, 1) == "needs 1 table bounce before the box"


def test_margins_carry_their_units():
    rows = margin_rows({"margins": {"bounces": {"margin_mm": 1, "uncertainty_mm": 0},
                                    "herd_line": {"margin_mm": 3.04, "uncertainty_mm": 2.0}}})
    assert rows[0]["margin"] == "1 bounce" and rows[0]["sigma"] == "0 bounces" and rows[0]["close"] == ""
    assert rows[1] == {"decision": "herd line", "margin": "3.0 mm", "sigma": "2.0 mm", "close": "close"}
