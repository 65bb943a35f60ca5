"""A ledger's or the leaderboard's Markdown as a standalone HTML page, for the report.

Snakemake's report shows HTML inline and offers Markdown only as a download, so each Markdown table
the pipeline writes is also written as a page of HTML tables. The page is converted from the Markdown
text itself, so the two never say different things. Only what the pipeline's Markdown uses is
understood: `#` headings, paragraphs, `- ` lists, pipe tables (with `\\|` inside a cell), `code`, **bold** and
*italic*. A table is as wide as the page, never wider: its cells wrap, long names anywhere (`STYLE`).
"""

from __future__ import annotations

import html
import re

STYLE = """
body { font-family: system-ui, sans-serif; font-size: 14px; margin: 1.5em; color: #1f2933; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; width: 100%; font-size: 12px; }
th, td { border: 1px solid #cbd2d9; padding: 0.3em 0.5em; text-align: left; vertical-align: top;
         overflow-wrap: anywhere; }
th { background: #f0f4f8; }
code { font-size: 0.92em; background: #f5f7fa; padding: 0 0.2em; }
"""
CELL_SEPARATOR = re.compile(r"(?<!\\)\|")


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
        head = "".join(f"<th>{inline(cell)}</th>" for cell in cells(first))
        rows = "\n".join("<tr>" + "".join(f"<td>{inline(cell)}</td>" for cell in cells(line)) + "</tr>" for line in lines[2:])
        return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{rows}\n</tbody>\n</table>"
    if all(line.startswith("- ") for line in lines):
        return "<ul>\n" + "\n".join(f"<li>{inline(line[2:])}</li>" for line in lines) + "\n</ul>"
    return f"<p>{inline(' '.join(line.strip() for line in lines))}</p>"


def markdown_page(text: str, title: str) -> str:
    """The whole page: `text` (the pipeline's Markdown) as HTML, titled `title`."""
    body = "\n".join(block_html(block) for block in blocks(text))
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{html.escape(title)}</title>\n"
            f"<style>{STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")
