"""The report's HTML pages say what the Markdown says: one HTML row per table row, every cell's text."""

from html.parser import HTMLParser

import numpy as np
import pandas as pd

from icdenoise.records.ledger_text import markdown
from icdenoise.records.pages import markdown_page


class Cells(HTMLParser):
    """The page's tables as lists of rows of cell texts, and its headings."""

    def __init__(self):
        super().__init__()
        self.tables, self.headings, self._text, self._in = [], [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th", "h1", "h2"):
            self._text, self._in = [], tag

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
    })
    text = markdown(table, "A study", "snakemake a", {"run": "paper", "files": [{"file": "config/config.yaml", "sha256": "0" * 64}], "merged_sha256": "1" * 64})
    page = parsed(markdown_page(text, "A study"))
    assert page.headings == ["Claims ledger: A study", "What we can and cannot conclude"]
    (rows,) = page.tables
    header, *body = rows
    assert header[0] == "claim" and len(header) == 12
    assert len(body) == 2 and all(len(row) == len(header) for row in body)
    assert body[1][0] == "b_claim" and body[1][6] == "FAIL (not registered)" and body[0][7] == "why | this" and body[0][9] == "abc1234" and body[0][11] == "registered"
    assert "x < y & z" in body[0][2]


def test_text_is_escaped_and_paragraphs_and_lists_are_kept():
    page = markdown_page("# T <1>\n\nSome `a<b>` and **bold**\ncontinued.\n\n- one\n- two\n", "T")
    assert "<h1>T &lt;1&gt;</h1>" in page
    assert "<p>Some <code>a&lt;b&gt;</code> and <strong>bold</strong> continued.</p>" in page
    assert "<ul>\n<li>one</li>\n<li>two</li>\n</ul>" in page


def test_an_undecided_verdict_is_in_italics_without_its_asterisks_and_tables_wrap_to_the_page():
    page = markdown_page("| verdict |\n|---|\n| *INCONCLUSIVE*: 2*3 is `a*b*` |\n", "A page")
    assert "<em>INCONCLUSIVE</em>: 2*3 is <code>a*b*</code>" in page
    assert "width: 100%" in page and "overflow-wrap: anywhere" in page
