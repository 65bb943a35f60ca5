"""The report's HTML pages say what the Markdown says: one HTML row per table row, every cell's text; a
table's short columns wrap only between words."""

from html.parser import HTMLParser

import numpy as np
import pandas as pd

from icdenoise.records.ledger_text import markdown
from icdenoise.records.pages import SHORT_BUDGET, SHORT_VALUE, markdown_page, short_columns


class Cells(HTMLParser):
    """The page's tables as lists of rows of cell texts (and of the cells' classes), and its headings."""

    def __init__(self):
        super().__init__()
        self.tables, self.classes, self.headings, self._text, self._in = [], [], [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
            self.classes.append([])
        elif tag == "tr":
            self.tables[-1].append([])
            self.classes[-1].append([])
        elif tag in ("td", "th", "h1", "h2"):
            self._text, self._in = [], tag
            if tag in ("td", "th"):
                self.classes[-1][-1].append(dict(attrs).get("class"))

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == self._in:
            text = "".join(self._text)
            (self.tables[-1][-1] if tag in ("td", "th") else self.headings).append(text)
            self._text, self._in = None, None


def parsed(page: str) -> Cells:
    parser = Cells()
    parser.feed(page)
    return parser


def test_a_ledger_page_has_a_row_per_claim_with_its_cells():
    table = pd.DataFrame({
        "claim": ["a_claim", "b_claim"], "location": ["Sec. 1", "Fig. 2"], "statement": ["x < y & z", "**not bold** here"],
        "paper_value": [1.0, 2.0], "ours_mean": [1.0, 3.0], "ours_min": [1.0, 3.0], "ours_max": [1.0, 3.0], "n_values": [1, 1],
        "comparison": ["within_absolute", "at_most"], "tolerance": [0.1, 0.0], "tolerance_reason": ["why | this", "why not"],
        "inconclusive_rules": ["interval", ""], "interval_low": [0.9, np.nan], "interval_high": [1.1, np.nan], "interval_method": ["t", ""],
        "verdict": ["PASS", "FAIL"], "why_inconclusive": ["", ""], "defined_in": ["abc1234", "unknown"],
        "built_from": ["def5678 (clean)", "unknown"], "registered": [True, False],
        "registration": ["registered", "not registered: no registration was looked up"],
        "first_written": ["0123abc", "unknown"], "first_result": ["none", "unknown"],
    })
    text = markdown(table, "A study", "snakemake a", {"run": "paper", "files": [{"file": "config/config.yaml", "sha256": "0" * 64}], "merged_sha256": "1" * 64})
    page = parsed(markdown_page(text, "A study"))
    assert page.headings == ["Claims ledger: A study", "Registration", "What we can and cannot conclude"]
    rows, registration = page.tables
    header, *body = rows
    assert header[0] == "claim" and len(header) == 9
    assert len(body) == 2 and all(len(row) == len(header) for row in body)
    assert body[1][0] == "b_claim" and body[1][6] == "FAIL (not registered)" and body[0][7] == "why | this"
    assert "x < y & z" in body[0][2]
    assert [name.replace("\u00ad", "") for name in header] == ["claim", "where", "statement", "paper value or bound", "ours", "test",
                                                                 "verdict", "why this tolerance", "inconclusive when"]
    assert header[8] == "in\u00adcon\u00adclu\u00adsive when"  # a narrow page may break a long header word between syllables only
    assert registration == [["claim", "defined in", "first written", "first result", "built from", "reg\u00adis\u00adtra\u00adtion"],
                            ["a_claim", "abc1234", "0123abc", "none", "def5678 (clean)", "registered"],
                            ["b_claim", "unknown", "unknown", "unknown", "unknown", "not registered: no registration was looked up"]]


def test_text_is_escaped_and_paragraphs_and_lists_are_kept():
    page = markdown_page("# T <1>\n\nSome `a<b>` and **bold**\ncontinued.\n\n- one\n- two\n", "T")
    assert "<h1>T &lt;1&gt;</h1>" in page
    assert "<p>Some <code>a&lt;b&gt;</code> and <strong>bold</strong> continued.</p>" in page
    assert "<ul>\n<li>one</li>\n<li>two</li>\n</ul>" in page


def test_an_undecided_verdict_is_in_italics_without_its_asterisks_and_tables_wrap_to_the_page():
    page = markdown_page("| verdict |\n|---|\n| *INCONCLUSIVE*: 2*3 is `a*b*` |\n", "A page")
    assert "<em>INCONCLUSIVE</em>: 2*3 is <code>a*b*</code>" in page
    assert "width: 100%" in page and "overflow-wrap: anywhere" in page


def short_classes(table_classes) -> list[int]:
    """The columns whose every cell, the header's included, has the class `short`."""
    return [index for index in range(len(table_classes[0])) if all(row[index] == "short" for row in table_classes)]


def test_short_columns_wrap_between_words_and_long_ones_anywhere_decided_per_table():
    long_text = "a statement long enough to need several lines in its column"
    page = markdown_page(
        "| claim | verdict | statement | test |\n|---|---|---|---|\n"
        f"| `fig3_linear_alpha_beta` | PASS | {long_text} | ± 0.01 |\n"
        f"| `fig4a_power_law` | **FAIL** | short | ≤ paper + 0.05 |\n"
        "\n"
        "| claim | verdict |\n|---|---|\n| a | *INCONCLUSIVE*: the 95% interval reaches both sides |\n", "A page")
    first, second = parsed(page).classes
    assert short_classes(first) == [1, 3]  # verdict and test: every value at most SHORT_VALUE characters as shown
    assert all(row[0] is None and row[2] is None for row in first)  # the claim ids and the statement wrap anywhere
    assert short_classes(second) == [0]  # the same header, decided from this table's own values
    assert '<td class="short"><strong>FAIL</strong></td>' in page and '<th class="short">verdict</th>' in page
    assert "<td><em>INCONCLUSIVE</em>: the 95% interval reaches both sides</td>" in page
    assert "*INCONCLUSIVE*" not in page and "**FAIL**" not in page
    assert "th.short, td.short { overflow-wrap: normal; word-break: keep-all; }" in page


def test_a_value_is_measured_as_shown_and_the_short_columns_keep_within_their_budget():
    marked = "`" + "x" * SHORT_VALUE + "`"  # SHORT_VALUE characters once its backticks are gone
    assert short_columns(["name"], [[marked]]) == {0}
    assert short_columns(["name"], [["x" * (SHORT_VALUE + 1)]]) == set()
    assert short_columns(["name"], []) == {0}  # no values: the header alone
    widths = [10, 3, 12, 7, 11, 9, 13, 8]  # each column's longest word, at most SHORT_VALUE, together over the budget
    assert max(widths) <= SHORT_VALUE and sum(widths) > SHORT_BUDGET
    header = [f"c{index}" for index in range(len(widths))]
    kept = short_columns(header, [["w" * width for width in widths]])
    dropped = set(range(len(widths))) - kept
    assert kept and dropped and sum(widths[index] for index in kept) <= SHORT_BUDGET
    assert max(widths[index] for index in kept) <= min(widths[index] for index in dropped)  # the narrowest first
    assert sum(widths[index] for index in kept) + min(widths[index] for index in dropped) > SHORT_BUDGET  # as many as fit
