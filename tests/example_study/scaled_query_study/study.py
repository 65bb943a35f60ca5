"""The example study's registration."""

from icdenoise.pipeline.registry import Study
from icdenoise.pipeline.resources import light

from .claims import CLAIMS


def problems(config: dict) -> list[str]:
    case = config["scaled_query"]["case"]
    if case not in config["cases"] or config["cases"][case]["corruption"]["kind"] != "query":
        return [f"scaled_query.case: {case!r} is not a configured case with query corruption"]
    return []


STUDY = Study(
    name="scaled_query",
    title="Example study: scalar shrinkage of the noisy query",
    claims=CLAIMS,
    problems=problems,
    sizes={"evaluate_scaled_query_grid": light, "score_scaled_query_denoisers": light},
)
