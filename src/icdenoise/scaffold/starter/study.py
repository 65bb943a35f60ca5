"""The starter study's registration."""

from icdenoise.pipeline.registry import Study
from icdenoise.pipeline.resources import light

from .claims import CLAIMS


def problems(config: dict) -> list[str]:
    return [f"starter.cases: {case!r} is not a configured case with query corruption (allowed: {', '.join(config['cases'])})"
            for case in config["starter"]["cases"]
            if case not in config["cases"] or config["cases"][case]["corruption"]["kind"] != "query"]


STUDY = Study(
    name="starter",
    title="The starter study: the noisy query against σ_z²",
    claims=CLAIMS,
    problems=problems,
    sizes={"compute_starter": light, "score_starter_denoisers": light},
)
