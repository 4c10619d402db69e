#!/usr/bin/env bash
# mcb demo: start a local `mcb serve` on a temporary data folder, build through the RPC commands, stop the server.
# Run with `make demo` (puts the venv's `mcb` on PATH). Headings go to stderr, command output to stdout.
set -euo pipefail

heading() { printf '\n==> %s\n' "$*" >&2; }

command -v mcb >/dev/null || { echo "mcb is not on PATH (run: make demo)" >&2; exit 1; }
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcb-demo.XXXXXX")"
SERVER_PID=""

cleanup() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true  # mcb serve closes cleanly on SIGTERM
    for _ in $(seq 1 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# Keep the demo away from the user's own config, data and state: every per-user folder mcb may use (XDG on Linux,
# HOME on macOS and elsewhere) is a temporary one, removed at the end.
export HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/config" XDG_DATA_HOME="$WORK/data" XDG_STATE_HOME="$WORK/state" \
  XDG_CACHE_HOME="$WORK/cache"
unset MCB_SERVER MCB_PROFILE MCB_TOKEN MCB_AGENT_TOKEN MCB_PLAYER_ID MCB_PROJECT_ID

# Pictures and files the demo makes stay here for you to look at (out/ is git-ignored).
OUT="${DEMO_OUT:-$ROOT/out/demo}"
mkdir -p "$OUT"

heading "start mcb serve (temporary data folder, free port, a spectator camera account)"
mcb serve --data "$WORK/server" --port 0 --tick-ms 5 --camera-player 0f6c3a6e-8a39-4a5b-9d4e-2f3f0d0c0a01 \
  --json >"$WORK/serve.json" 2>"$WORK/serve.log" &
SERVER_PID=$!
for _ in $(seq 1 100); do
  [[ -s "$WORK/serve.json" ]] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/serve.log" >&2; exit 1; }
  sleep 0.1
done
URL="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$WORK/serve.json")"

heading "a profile that reads the tokens from the server's token file (never printed)"
mcb config init --name demo --server-url "$URL" --player-id console \
  --token-file "$WORK/server/tokens.json" --agent-token-file "$WORK/server/tokens.json"
mcb config show

heading "health and project context"
mcb health
mcb context

heading "prepare a small gate house (nothing is written yet)"
cat >"$WORK/gatehouse.json" <<'JSON'
{"version": 1, "operations": [
  {"type": "box", "min": {"x": 0, "y": 64, "z": 0}, "max": {"x": 6, "y": 64, "z": 4}, "block": "minecraft:polished_andesite"},
  {"type": "box", "min": {"x": 0, "y": 65, "z": 0}, "max": {"x": 6, "y": 69, "z": 4}, "block": "minecraft:stone_bricks", "hollow": true},
  {"type": "box", "min": {"x": 2, "y": 65, "z": 0}, "max": {"x": 4, "y": 67, "z": 0}, "block": "minecraft:air"},
  {"type": "line", "from": {"x": 0, "y": 70, "z": 0}, "to": {"x": 6, "y": 70, "z": 0}, "block": "minecraft:oak_stairs[facing=north]"}
]}
JSON
mcb prepare "$WORK/gatehouse.json" -o "$WORK/plan.json"

heading "apply the saved plan and wait (idempotency key mcb-<plan id>)"
mcb apply "$WORK/plan.json" --wait
OPERATION="$(mcb context --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["operations"][0]["operation_id"])')"

heading "inspect what was built, and take a picture once the build is applied"
mcb inspect --min 0,64,0 --max 6,70,4
mcb camera capture --pose 3.5,64,-14.5,0,5 --after "$OPERATION" -o "$OUT/gatehouse-camera.png"

heading "export it as a schematic, then place a copy turned 90 degrees"
if mcb export "gate house" --min 0,64,0 --max 6,70,4 --json >"$WORK/asset.json"; then
  ASSET="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["assetId"])' "$WORK/asset.json")"
  mcb asset list
  mcb build --asset "$ASSET" --target 20,64,0 --rotation 90
  mcb inspect --min 16,64,0 --max 20,70,6
else
  echo "(schematic export is not available on this server build; skipping the re-import)" >&2
fi

heading "undo the first build"
mcb undo "$OPERATION" --apply
mcb inspect --min 0,64,0 --max 6,70,4

heading "a resumable batch: two builds and an undo; the second run skips every step"
cat >"$WORK/demo.batch.json" <<'JSON'
{"version": 1, "steps": [
  {"name": "pillar", "kind": "recipe", "recipe": {"version": 1, "operations": [
    {"type": "line", "from": {"x": -8, "y": 64, "z": -8}, "to": {"x": -8, "y": 72, "z": -8}, "block": "minecraft:oak_log[axis=y]"}]}},
  {"name": "gatehouse", "kind": "recipe", "recipe": "gatehouse.json"},
  {"name": "no-gatehouse", "kind": "undo", "step": "gatehouse"}
]}
JSON
mcb batch "$WORK/demo.batch.json"
mcb batch "$WORK/demo.batch.json"

heading "stop the server; the rest runs offline, with no server at all"
cleanup_server() {
  kill -TERM "$SERVER_PID" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
  SERVER_PID=""
}
cleanup_server

heading "offline: block states against the vanilla registry (Minecraft 26.2)"
mcb block check 'oak_stairs[facing=east]' 'minecraft:chest[type=left]'
mcb block check 'oak_stairs[facing=up]' || echo "(exit $? as expected: facing=up is not a stair facing)" >&2

heading "offline: lint the example recipes, compile one to a schematic and a picture"
mcb recipe lint "$ROOT"/recipes/*.json --exclude '*.schema.json'
mcb recipe compile "$ROOT/recipes/tower.json" --schem "$OUT/tower.schem" --png "$OUT/tower.png"

heading "offline: validate the sample schematics the way the server would (exit 1: four are refused: two Sponge v3, a Litematica and a legacy .schematic)"
mcb schem validate "$ROOT/schematics" "$OUT/tower.schem" || echo "(exit $?: the server imports only Sponge v2; convert the others)" >&2
mcb schem convert "$ROOT/schematics/hut_v3.schem" -o "$OUT/hut.schem"
mcb schem validate "$OUT/hut.schem"
mcb schem convert "$ROOT/schematics/chest_with_loot_v3.schem" -o "$OUT/chest_with_loot_v2.schem" \
  || echo "(exit $?: converting would lose data, so mcb refuses)" >&2

heading "offline: rotate a schematic 90 degrees (stairs, doors and fences turn correctly) and render both"
mcb schem info "$ROOT/schematics/house.schem"
mcb schem rotate "$ROOT/schematics/house.schem" --degrees 90 -o "$OUT/house-90.schem"
mcb schem render "$ROOT/schematics/house.schem" -o "$OUT/house.png"
mcb schem render "$OUT/house-90.schem" -o "$OUT/house-90.png"

heading "offline: terrain preview, exactly as the server computes it (the picture adds a legend and a scale bar)"
mcb terrain lint "$ROOT/recipes/terrain/"
mcb terrain preview "$ROOT/recipes/terrain/valley-lake.json" --offline -o "$OUT/valley-lake.png"

heading "done: pictures and schematics are in $OUT"
