"""NaN, Infinity and numbers beyond a double (1e999) are not JSON: the CLI refuses them (exit 2) before any request
reaches the server, instead of sending invalid JSON on the wire."""

from __future__ import annotations

import pytest
from rpc_testkit import FaultProxy


@pytest.fixture
def proxied(mcb, rpc_env, monkeypatch):
    """``mcb`` through a proxy that records every request the server would have seen."""
    with FaultProxy(rpc_env.url) as proxy:
        monkeypatch.setenv("MCB_SERVER", proxy.url)
        mcb.proxy = proxy
        yield mcb


@pytest.mark.parametrize(
    "pose", ["nan,80,-20,0,30", "0,inf,-20,0,30", "0,80,1e999,0,30", "0,80,-20,-inf,30", "0,80,-20,0,NaN"]
)
def test_camera_capture_refuses_a_non_finite_pose(proxied, pose, tmp_path):
    result = proxied("camera", "capture", "--pose", pose, "-o", tmp_path / "x.png")
    assert result.exit_code == 2
    assert f"--pose expects x,y,z,yaw,pitch finite numbers, got '{pose}'" in result.stderr
    assert proxied.proxy.requests == []
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize(
    "params,says",
    [
        ('{"pose":{"x":NaN,"y":80,"z":0,"yaw":0,"pitch":0}}', "NaN is not a JSON number"),
        ('{"pose":{"x":0,"y":1e999,"z":0,"yaw":0,"pitch":0}}', "1e999 is too large for a number"),
        ('{"pose":{"x":0,"y":80,"z":-Infinity,"yaw":0,"pitch":0}}', "-Infinity is not a JSON number"),
    ],
)
def test_rpc_refuses_non_finite_numbers_in_params(proxied, params, says):
    result = proxied("rpc", "camera_capture", params)
    assert result.exit_code == 2
    assert says in result.stderr
    assert proxied.proxy.requests == []


def test_rpc_still_sends_finite_numbers(proxied):
    result = proxied("rpc", "material_describe", '{"id": "minecraft:stone", "x": 1e300}')
    assert proxied.proxy.methods() == ["material_describe"]
    assert "Traceback" not in result.stderr
