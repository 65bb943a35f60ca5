"""A checkpoint's identity (icdenoise.pipeline.checkpoints.identity): the same job in another copy of the workflow (the
next GPU slot's machine, another cluster node's checkout) has the same identity, so the checkpoint carried there
continues; a changed input is named."""

from icdenoise.pipeline.checkpoints import differences, identity


def _copy(root, code: str):
    (root / "src").mkdir(parents=True)
    (root / "src" / "model.py").write_text(code)
    (root / "results").mkdir()
    (root / "results" / "table.parquet").write_bytes(b"rows")
    return [str(root / "src" / "model.py"), "results/table.parquet"]


def test_the_same_job_in_another_copy_of_the_workflow_has_the_same_identity(tmp_path, monkeypatch):
    here, there = tmp_path / "here", tmp_path / "there"
    inputs_here, inputs_there = _copy(here, "step = 1\n"), _copy(there, "step = 1\n")
    monkeypatch.chdir(here)
    saved = identity("train", {"seed": 0}, {"steps": 5}, inputs_here)
    monkeypatch.chdir(there)
    current = identity("train", {"seed": 0}, {"steps": 5}, inputs_there)
    assert sorted(current["inputs"]) == ["results/table.parquet", "src/model.py"]
    assert current == saved and differences(saved, current) == []


def test_a_changed_input_in_the_other_copy_is_named(tmp_path, monkeypatch):
    here, there = tmp_path / "here", tmp_path / "there"
    inputs_here, inputs_there = _copy(here, "step = 1\n"), _copy(there, "step = 2\n")
    saved = identity("train", {"seed": 0}, {"steps": 5}, inputs_here, root=here)
    current = identity("train", {"seed": 0}, {"steps": 5}, inputs_there, root=there)
    assert differences(saved, current) == ["input src/model.py changed"]


def test_an_input_outside_the_workflow_keeps_its_path(tmp_path):
    outside = tmp_path / "data.csv"
    outside.write_text("x\n")
    found = identity("train", {}, {}, [str(outside)], root=tmp_path / "workflow")
    assert list(found["inputs"]) == [str(outside)]
