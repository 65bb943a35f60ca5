"""A ledger's snapshot: the ledger's values and each claim's digest from the lock at the commit it was built
at, read back as written; a ledger with rows that are not registered is refused unless allowed, then marked."""

import math

import pytest
from toy_ledger import BUILT, LOCKS, REGISTERED_IN, write_toy_ledger

from icdenoise.records.holm import with_holm
from icdenoise.records.ledger_snapshots import COLUMNS, OPTIONAL, SnapshotError, read_snapshot, snapshot_text


def test_a_registered_ledger_gives_its_values_and_the_digests_of_the_lock_it_was_built_at(tmp_path):
    ledger = write_toy_ledger(tmp_path / "figures" / "toy" / "claims.parquet")
    target, text = snapshot_text(ledger, LOCKS.get, shown_as="figures/toy/claims.parquet")
    assert target.as_posix() == "docs/ledgers/default/toy.csv"
    assert f"# built at: {BUILT} (clean)\n" in text and "# registration: every row registered\n" in text
    (tmp_path / "toy.csv").write_text(text)
    snapshot = read_snapshot(tmp_path / "toy.csv")
    assert snapshot.citable and tuple(snapshot.table.columns) == COLUMNS
    spread, single = snapshot.table.itertuples()
    assert (spread.claim, spread.verdict, spread.digest, spread.n_values) == ("spread", "INCONCLUSIVE", "1111222233334444", 3)
    assert spread.interval_low == pytest.approx(0.751586) and spread.registered is True
    assert (single.verdict, single.exploratory, single.digest) == ("FAIL", "the bound chosen after a result", "5555666677778888")
    # t = 0.2 / (0.1 / sqrt 3) = 2 sqrt 3 on 2 degrees of freedom, two-sided: 1 - t / sqrt(2 + t^2)
    assert spread.p_value == pytest.approx(1 - 2 * math.sqrt(3) / math.sqrt(14), rel=1e-5)
    assert (spread.interval_method, spread.holm_verdict) == ("t-interval over 3 values", "INCONCLUSIVE")
    assert math.isnan(single.p_value) and single.holm_verdict == "FAIL (not adjustable)"
    assert snapshot_text(ledger, LOCKS.get, shown_as="figures/toy/claims.parquet")[1] == text  # the same ledger, the same text


def test_a_named_run_goes_to_its_own_folder_and_reads_its_own_lock_lines(tmp_path):
    ledger = write_toy_ledger(tmp_path / "claims.parquet", run_prefix="long/")
    target, text = snapshot_text(ledger, LOCKS.get)
    assert target.as_posix() == "docs/ledgers/long/toy.csv" and "# run: long\n" in text
    assert ",9999aaaabbbbcccc\n" in text and text.endswith(",dddd\n")
    without = {commit: text.replace("long/toy.single dddd\n", "") for commit, text in LOCKS.items()}
    with pytest.raises(SnapshotError, match="has a line long/toy.single"):
        snapshot_text(ledger, without.get)


def test_a_ledger_that_is_not_registered_is_refused_unless_allowed_and_then_marked(tmp_path):
    ledger = write_toy_ledger(tmp_path / "claims.parquet", registered=False)
    with pytest.raises(SnapshotError, match=r"claims.parquet: 2 of 2 claims are not registered .*--allow-unregistered"):
        snapshot_text(ledger, LOCKS.get)
    target, text = snapshot_text(ledger, LOCKS.get, allow_unregistered=True)
    (tmp_path / "toy.csv").write_text(text)
    snapshot = read_snapshot(tmp_path / "toy.csv")
    assert not snapshot.citable and "NOT CITABLE: 2 of 2 rows" in snapshot.header["registration"]
    assert list(snapshot.table["digest"]) == ["", ""]


def test_a_registration_that_the_history_does_not_hold_is_refused(tmp_path):
    ledger = write_toy_ledger(tmp_path / "claims.parquet")
    history = {BUILT: LOCKS[BUILT], REGISTERED_IN: "# an older lock\ntoy.spread 0000000000000000\n"}
    with pytest.raises(SnapshotError, match="no claims lock there holds toy.spread 1111222233334444"):
        snapshot_text(ledger, history.get)
    with pytest.raises(SnapshotError, match="git has no claims lock"):
        snapshot_text(ledger, {}.get)


def test_a_file_that_is_not_a_snapshot_is_named(tmp_path):
    (tmp_path / "other.csv").write_text("claim,verdict\nx,PASS\n")
    with pytest.raises(SnapshotError, match="other.csv: not a ledger snapshot"):
        read_snapshot(tmp_path / "other.csv")


def test_a_snapshot_written_before_the_adjustment_is_read_with_its_columns_absent(tmp_path):
    old = write_toy_ledger(tmp_path / "old.parquet", holm=False)  # a ledger built by older code
    text = snapshot_text(old, LOCKS.get)[1]
    assert "p_value" not in text and "interval_method" not in text
    (tmp_path / "old.csv").write_text(text)
    snapshot = read_snapshot(tmp_path / "old.csv")
    assert tuple(snapshot.table.columns) == tuple(column for column in COLUMNS if column not in OPTIONAL)
    new = read_snapshot(_written(tmp_path, write_toy_ledger(tmp_path / "new.parquet")))
    again = with_holm(snapshot.table)  # the same p-values, the t-interval inferred from the symmetric interval
    assert list(again["p_value"].fillna(-1)) == pytest.approx(list(new.table["p_value"].fillna(-1)), rel=1e-5)
    assert list(again["holm_verdict"]) == list(new.table["holm_verdict"])
    assert again["p_basis"].iloc[0] == "t, 2 degrees of freedom, method inferred"
    mixed = text.replace(",digest\n", ",holm_verdict,p_value,digest\n", 1)  # out of order: not this format
    (tmp_path / "mixed.csv").write_text(mixed)
    with pytest.raises(SnapshotError, match="not a ledger snapshot"):
        read_snapshot(tmp_path / "mixed.csv")


def _written(folder, ledger):
    path = folder / "snapshot.csv"
    path.write_text(snapshot_text(ledger, LOCKS.get)[1])
    return path


def test_a_registration_carried_from_the_method_before_is_taken_only_where_the_history_carries_it(tmp_path):
    """Built after the method-2 lines came: each row names the commit of its method-1 line, which its lock there holds
    instead; the history (registration.registered_in, given as a function) must lead the method-2 line back to it."""
    ledger = write_toy_ledger(tmp_path / "claims.parquet")
    carried = {BUILT: LOCKS[BUILT].replace("toy.spread 1111222233334444", "toy.spread 2:1111222233334444"),
               REGISTERED_IN: LOCKS[REGISTERED_IN]}
    with pytest.raises(SnapshotError, match="no claims lock there holds toy.spread 2:1111222233334444"):
        snapshot_text(ledger, carried.get)
    with pytest.raises(SnapshotError, match="no claims lock there holds toy.spread 2:1111222233334444"):
        snapshot_text(ledger, carried.get, registration=lambda commit, line: "c" * 7)  # the history registers it elsewhere
    _, text = snapshot_text(ledger, carried.get, registration=lambda commit, line: REGISTERED_IN if commit == BUILT else None)
    assert "2:1111222233334444" in text and "# registration: every row registered\n" in text
