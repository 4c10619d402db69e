"""The fdlibm hypot port against a real JVM's Math.hypot (skipped when no JDK is installed)."""

from __future__ import annotations

import shutil
import struct
import subprocess

import numpy as np
import pytest

from mcb.terrain.fdlibm import java_hypot

JAVA_SOURCE = """
import java.io.*;
public class Hyp {
    public static void main(String[] args) throws Exception {
        DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(args[0])));
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(args[1])));
        int n = in.readInt();
        for (int i = 0; i < n; i++) out.writeDouble(Math.hypot(in.readDouble(), in.readDouble()));
        out.close();
    }
}
"""


def jvm_hypot(tmp_path, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    (tmp_path / "Hyp.java").write_text(JAVA_SOURCE)
    subprocess.run(["javac", str(tmp_path / "Hyp.java")], check=True, capture_output=True)
    data = tmp_path / "in.bin"
    data.write_bytes(struct.pack(">i", len(a)) + np.stack([a, b], 1).astype(">f8").tobytes())
    subprocess.run(
        ["java", "-cp", str(tmp_path), "Hyp", str(data), str(tmp_path / "out.bin")],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return np.frombuffer((tmp_path / "out.bin").read_bytes(), dtype=">f8").astype(np.float64)


@pytest.mark.skipif(not (shutil.which("java") and shutil.which("javac")), reason="needs a JDK")
def test_port_matches_the_jvm_bit_for_bit(tmp_path):
    rng = np.random.default_rng(2809)
    n = 200_000
    special = np.array(
        [
            0.0,
            -0.0,
            1.0,
            3.0,
            4.0,
            5.0,
            1e-13,
            0.5,
            2048.0,
            3e18,
            7.25,
            7.25,
            30_000_000.0,
            -60_000_000.0,
            1.0 + 2**-52,
            123456.789,
        ]
    )
    a = np.concatenate(
        [
            special,
            rng.uniform(-3000, 3000, n),
            rng.integers(-60_000_000, 60_000_000, n),
            rng.uniform(-1, 1, n) * 10.0 ** rng.integers(-12, 8, n),
        ]
    ).astype(np.float64)
    b = np.concatenate(
        [
            special[::-1],
            rng.uniform(-3000, 3000, n),
            rng.integers(-3000, 3000, n),
            rng.uniform(-1, 1, n) * 10.0 ** rng.integers(-12, 8, n),
        ]
    ).astype(np.float64)
    expected = jvm_hypot(tmp_path, a, b)
    got = java_hypot(a, b)
    assert np.array_equal(got.view(np.uint64), expected.view(np.uint64))
    # and numpy's own hypot really is different, which is why the port exists
    assert int((np.hypot(a, b) != expected).sum()) > 1000


def test_simple_values():
    assert java_hypot(3.0, 4.0) == 5.0 and java_hypot(0.0, -7.5) == 7.5 and java_hypot(-0.0, 0.0) == 0.0
    assert java_hypot(np.array([6.0, 5.0]), np.array([8.0, 12.0])).tolist() == [10.0, 13.0]
    with pytest.raises(ValueError):
        java_hypot(1e300, 1.0)


@pytest.mark.skipif(not (shutil.which("java") and shutil.which("javac")), reason="needs a JDK")
def test_integer_fast_path_matches_the_jvm(tmp_path):
    from mcb.terrain.fdlibm import integer_hypot

    rng = np.random.default_rng(7)
    limit = 60_000_001
    a = np.concatenate(
        [rng.integers(-limit, limit, 200_000), rng.integers(-3000, 3000, 200_000), [limit - 1, -(limit - 1), 0, 1]]
    ).astype(np.float64)
    b = np.concatenate(
        [rng.integers(-limit, limit, 200_000), rng.integers(-3000, 3000, 200_000), [limit - 1, limit - 1, 0, 0]]
    ).astype(np.float64)
    assert np.array_equal(integer_hypot(a, b).view(np.uint64), jvm_hypot(tmp_path, a, b).view(np.uint64))
