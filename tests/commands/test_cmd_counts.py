"""Counts in the read commands' text, each computed here independently of the code that prints it (issue 29,
"Numbers"): `mcb context` (materials, listed parts and operations), `mcb inspect`, `mcb verify` (its progress, a
folder passed by mistake)."""

from __future__ import annotations

import json
import re

from rpc_testkit import box_recipe

COUNT = r"\d{1,3}(?:,\d{3})*"


def _count(text: str) -> int:
    assert re.fullmatch(COUNT, text), f"{text!r} is not a count with thousands separators"
    return int(text.replace(",", ""))


def _rows(stdout: str) -> dict[str, str]:
    return {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in stdout.splitlines() if ": " in line)}


def _client(server):
    from mcb.client import McbClient

    return McbClient(server.url, agent_token=server.agent_token, player_id="console")


def test_the_material_counts_add_up(mcb, rpc_env):
    """Blocks and items overlap (a material can be both): counted here by paging `material_search kind=all`."""
    both = blocks = items = total = 0
    with _client(rpc_env) as client:
        cursor = None
        while True:
            page = client.call(
                "material_search", {"kind": "all", "limit": 32, **({"cursor": cursor} if cursor else {})}
            )
            for entry in page["results"]:
                total += 1
                blocks += entry["block"]
                items += entry["item"]
                both += entry["block"] and entry["item"]
            cursor = page.get("next_cursor")
            if not cursor:
                break
    line = _rows(mcb("context").stdout)["materials"]
    match = re.fullmatch(rf"({COUNT}) \(({COUNT}) blocks, ({COUNT}) items; ({COUNT}) are both\), catalog \w+", line)
    assert match, line
    assert [_count(n) for n in match.groups()] == [total, blocks, items, both]
    assert total == blocks + items - both  # every material is a block, an item or both


def test_context_says_how_many_operations_it_lists(mcb, rpc_env):
    """The answer lists the 20 most recent operations (protocol §3.1): 23 applied here, 3 of them named parts."""
    from mcb.client.operations import follow_operation

    made = 23
    with _client(rpc_env) as client:
        for index in range(made):
            plan = client.build_prepare(box_recipe(-60 + index, 100, 0, size=1))
            status = client.build_apply(plan.plan_id, plan.plan_hash, f"count-{index}")
            follow_operation(client, status.operation_id, first=status)
            if index < 3:
                client.part_define(f"part {index}", status.operation_id)
    result = mcb("context")
    rows = _rows(result.stdout)
    assert rows["operations"] == f"{made} (the 20 most recent below)"
    assert rows["parts"] == "3"  # all listed: no note
    listed = re.findall(r"^\S{36}\s+applied\s", result.stdout, re.MULTILINE)
    assert len(listed) == 20


def test_a_short_listing_has_no_note(mcb, rpc_env):
    with _client(rpc_env) as client:
        plan = client.build_prepare(box_recipe(0, 100, 0, size=1))
        client.build_apply(plan.plan_id, plan.plan_hash, "one")
    assert _rows(mcb("context").stdout)["operations"] == "1"


def test_inspect_counts_have_separators_and_add_up(mcb, tmp_path):
    """A 16 x 5 x 16 box of the new world: 1,280 blocks; the palette's counts add up to it."""
    result = mcb("inspect", "--min", "-8,60,-8", "--max", "7,64,7")
    assert result.exit_code == 0, result.stderr
    head, *rest = result.stdout.splitlines()
    assert head.endswith(": 1,280 blocks, " + f"{len(rest) - 2} states")
    assert sum(_count(line.split()[0]) for line in rest[2:]) == 16 * 5 * 16


def test_verify_progress_counts_tiles_of_tiles(mcb, tmp_path, monkeypatch, corpus):
    """The progress counted cells read against a total of tiles ("317,312 of 1,512 cells read"): now both
    numbers count tiles, the done one step by step up to the total."""
    from mcb import terminal

    monkeypatch.setattr(terminal, "PLAIN_PROGRESS_INTERVAL", 0.0)
    file = corpus / "v2_nucleation_new_chest_test.schem"
    assert mcb("build", file, "--target", "0,70,0", "--drop-extras", "--yes").exit_code == 0
    result = mcb("verify", file, "--target", "0,70,0")
    assert result.exit_code == 0, result.stderr
    lines = re.findall(rf"^verify: ({COUNT}) of ({COUNT}) tiles? compared \((\d+)%\)$", result.stderr, re.MULTILINE)
    assert lines, result.stderr
    done = [_count(d) for d, _, _ in lines]
    totals = {_count(t) for _, t, _ in lines}
    assert len(totals) == 1 and done == list(range(1, len(done) + 1)) and done[-1] == totals.pop()
    assert all(int(p) == 100 * d // _count(t) for d, t, p in ((_count(a), b, c) for a, b, c in lines))
    assert "cells read" not in result.stderr


def test_verify_of_a_folder_says_which_file_to_pass(mcb, rpc_env, corpus):
    result = mcb("verify", corpus, "--target", "0,64,0")
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    error, hint = result.stderr.splitlines()[:2]
    assert error == f"error: {corpus} is a folder: verify compares the world with one schematic file"
    schematics = sorted(p for p in corpus.iterdir() if p.suffix in (".schem", ".litematic", ".nbt", ".schematic"))
    assert hint == (
        f"hint: it holds {len(schematics)} schematics; pass one, e.g. `mcb verify {schematics[0]} --target 0,64,0` "
        "(with the options its build used)"
    )
    untargeted = mcb("verify", corpus)  # the example holds a target to fill in, not "None"
    assert f"`mcb verify {schematics[0]} --target X,Y,Z`" in untargeted.stderr, untargeted.stderr


def test_a_refused_token_names_the_file_it_came_from_and_where_a_fresh_one_is(cli, live_server, tmp_path, monkeypatch):
    """A profile whose token file is an earlier server's: the hint names that file and the keys to point at the
    one `mcb serve` printed."""
    for name in ("MCB_TOKEN", "MCB_AGENT_TOKEN", "MCB_SERVER", "MCB_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    stale = tmp_path / "old-tokens.json"
    stale.write_text(json.dumps({"admin_token": "a" * 64, "agent_token": "b" * 64}))
    stale.chmod(0o600)
    made = cli(
        "config", "init", "--server-url", live_server.url, "--player-id", "console",
        "--token-file", str(stale), "--agent-token-file", str(stale),
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    result = cli("context")
    assert result.exit_code == 4
    hint = next(line for line in result.stderr.splitlines() if line.startswith("hint: "))
    assert f"from token file {stale} (profile 'default')" in hint
    assert "the `tokens:` file `mcb serve` printed" in hint
    assert "`mcb config set agent_token_file FILE` and `mcb config set token_file FILE`" in hint
    fresh = cli("config", "set", "agent_token_file", str(live_server.data_dir / "tokens.json"))
    assert fresh.exit_code == 0, fresh.stderr
    assert cli("context").exit_code == 0  # following the hint works
