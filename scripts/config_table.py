"""Print the README's table of every config key, generated from the JSON schema.

Usage: python scripts/config_table.py > /tmp/table.md (then paste under "Every key").
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

SCHEMA = Path(__file__).resolve().parents[1] / "workflow" / "schemas" / "config.schema.yaml"


def resolve(node: dict, defs: dict) -> dict:
    if "$ref" in node:
        return {**resolve(defs[node["$ref"].split("/")[-1]], defs), **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def allowed(node: dict, defs: dict) -> str:
    if "const" in node:
        return f"`{node['const']}`"
    if "enum" in node:
        return " \\| ".join(map(str, node["enum"]))
    if node.get("type") == "array":
        items = resolve(node.get("items", {}), defs)
        return "list of " + (allowed(items, defs) or items.get("type", "values"))
    bounds = [f"{symbol} {node[key]:g}" if isinstance(node[key], float) else f"{symbol} {node[key]}"
              for key, symbol in (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<"))
              if key in node]
    if "pattern" in node:
        bounds.append(f"matches `{node['pattern']}`")
    return ", ".join(bounds)


def rows(node: dict, path: str, defs: dict):
    node = resolve(node, defs)
    if path:
        yield path, node
    for key, child in node.get("properties", {}).items():
        yield from rows(child, f"{path}.{key}" if path else key, defs)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        extra = resolve(extra, defs)
        variants = [resolve(branch["then"], defs) for branch in extra.get("allOf", []) if "then" in branch]
        name = "<case>" if path == "cases" else "<name>"
        yield f"{path}.{name}", extra
        seen = set()
        for variant in variants or [extra]:
            for key, child in variant.get("properties", {}).items():
                if key not in seen:
                    seen.add(key)
                    tasks = [v["properties"]["task"]["const"] for v in variants if key in v.get("properties", {})]
                    child = resolve(child, defs)
                    if variants and len(tasks) < len(variants):
                        child = {**child, "description": f"({', '.join(tasks)} only) {child.get('description', '')}"}
                    if key == "task":
                        child = {**child, "enum": [v["properties"]["task"]["const"] for v in variants]}
                        child.pop("const", None)
                    yield from rows(child, f"{path}.{name}.{key}", defs)


def main() -> None:
    schema = yaml.safe_load(SCHEMA.read_text())
    defs = schema["$defs"]
    out = ["| key | type | allowed | meaning |", "|---|---|---|---|"]
    for path, node in rows(schema, "", defs):
        description = " ".join(str(node.get("description", "")).split()).replace("|", "\\|")
        out.append(f"| `{path}` | {node.get('type', '')} | {allowed(node, defs)} | {description} |")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
