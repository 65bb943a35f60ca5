"""A ledger's or the leaderboard's Markdown as a standalone HTML page, for the report.

Snakemake's report shows HTML inline and offers Markdown only as a download, so each Markdown table
the pipeline writes is also written as a page of HTML tables. The page is converted from the Markdown
text itself, so the two never say different things. Only what the pipeline's Markdown uses is
understood: `#` headings, paragraphs, `- ` lists, pipe tables (with `\\|` inside a cell), `code`, **bold** and
*italic*. A table is as wide as the page, and no wider in a page as narrow as the report's frame: its headers and
the cells of its short columns wrap only between words, all other cells anywhere, inside long names too (`STYLE`). Which
columns are short is decided from each table's own text when it is converted (`short_columns`): those whose
every value is at most `SHORT_VALUE` characters, narrowest first, as long as their longest words together
stay within `SHORT_BUDGET` characters, the floor they put on the table's width.
"""

from __future__ import annotations

import html
import re

STYLE = """
body { font-family: system-ui, sans-serif; font-size: 14px; margin: 0.5em; color: #1f2933; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; width: 100%; font-size: 12px; }
th, td { border: 1px solid #cbd2d9; padding: 0.3em 0.25em; text-align: left; vertical-align: top;
         overflow-wrap: anywhere; }
th { background: #f0f4f8; overflow-wrap: normal; }
th.short, td.short { overflow-wrap: normal; word-break: keep-all; }
code { font-size: 0.92em; background: #f5f7fa; padding: 0 0.2em; }
"""
CELL_SEPARATOR = re.compile(r"(?<!\\)\|")

# A short column: every value (its text as shown) is at most this many characters: a verdict, a test
# ("≥ paper − 0.05"), a commit ("4c480ea (clean)"), a number. Its cells and header wrap only between words.
SHORT_VALUE = 15
# The most characters the short columns' longest words may take together (each the longest word of its
# header or values): their cells no longer shrink below that word, so together they set a floor on the
# table's width, and the other columns share what is left. The report shows a page in a frame ~620px wide
# (at the browser test's window of 1400px): a ledger's 12 columns take ~110px of padding, 30 characters
# of the 12px font ~200px, which leaves the long columns ~270px even then.
SHORT_BUDGET = 30


def inline(text: str) -> str:
    """Escaped text with `code`, **bold** and *italic* as HTML."""
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
        else:
            bold = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", html.escape(part))
            out.append(re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", bold))
    return "".join(out)


def shown(cell: str) -> str:
    """A cell's text as the page shows it: without its Markdown marks."""
    return html.unescape(re.sub(r"<[^>]+>", "", inline(cell)))


def short_columns(header: list[str], rows: list[list[str]]) -> set[int]:
    """The indices of a table's short columns: every value at most SHORT_VALUE characters as shown, taken
    narrowest first (by the longest word of the header and the values) while their longest words together
    stay within SHORT_BUDGET."""
    widths = {}
    for index, name in enumerate(header):
        values = [shown(row[index]) for row in rows if index < len(row)]
        if all(len(value) <= SHORT_VALUE for value in values):
            widths[index] = max(len(word) for text in [shown(name), *values] for word in [*text.split(), ""])
    short, total = set(), 0
    for index in sorted(widths, key=lambda index: (widths[index], index)):
        if total + widths[index] > SHORT_BUDGET:
            break
        short.add(index)
        total += widths[index]
    return short


def table_cell(tag: str, text: str, short: bool) -> str:
    return f"<{tag} class=\"short\">{inline(text)}</{tag}>" if short else f"<{tag}>{inline(text)}</{tag}>"


def cells(line: str) -> list[str]:
    """The cells of a pipe-table row, with `\\|` unescaped."""
    inner = line.strip().removeprefix("|").removesuffix("|")
    return [cell.strip().replace("\\|", "|") for cell in CELL_SEPARATOR.split(inner)]


def is_separator(line: str) -> bool:
    return bool(re.fullmatch(r"\|?(\s*:?-+:?\s*\|)+\s*:?-*:?\s*\|?", line.strip()))


def blocks(text: str) -> list[list[str]]:
    """The text's blocks: runs of non-blank lines."""
    found, current = [], []
    for line in text.splitlines():
        if line.strip():
            current.append(line)
        elif current:
            found.append(current)
            current = []
    return found + ([current] if current else [])


def block_html(lines: list[str]) -> str:
    first = lines[0]
    heading = re.match(r"(#{1,6})\s+(.*)", first)
    if heading:
        level = len(heading.group(1))
        title = f"<h{level}>{inline(heading.group(2))}</h{level}>"
        return title + ("\n" + block_html(lines[1:]) if lines[1:] else "")
    if len(lines) >= 2 and first.lstrip().startswith("|") and is_separator(lines[1]):
        header, body = cells(first), [cells(line) for line in lines[2:]]
        short = short_columns(header, body)
        head = "".join(table_cell("th", cell, index in short) for index, cell in enumerate(header))
        rows = "\n".join("<tr>" + "".join(table_cell("td", cell, index in short) for index, cell in enumerate(row)) + "</tr>"
                         for row in body)
        return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{rows}\n</tbody>\n</table>"
    if all(line.startswith("- ") for line in lines):
        return "<ul>\n" + "\n".join(f"<li>{inline(line[2:])}</li>" for line in lines) + "\n</ul>"
    return f"<p>{inline(' '.join(line.strip() for line in lines))}</p>"


def markdown_page(text: str, title: str) -> str:
    """The whole page: `text` (the pipeline's Markdown) as HTML, titled `title`."""
    body = "\n".join(block_html(block) for block in blocks(text))
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{html.escape(title)}</title>\n"
            f"<style>{STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")
