"""The local server's camera worker: what a spectator at a pose would see, drawn from the local world.

In the plugin a pose goes to a camera mod in a real Minecraft client, which takes the screenshot. `mcb serve` has
no client, so this worker casts a ray per pixel through the local world (placed blocks and the generated ground) up to
:data:`RENDER_DISTANCE` blocks from the eye and shades each block face with the colour table of
`mcb schem render`. It answers in the camera mod's shape (protocol §3.11): ``pending`` at once, then, when polled,
``completed`` with a PNG, so `mcb camera capture` runs end to end here. The picture is a stand-in, not Minecraft's
renderer: flat colours, no textures, no entities, no transparency.
"""

from __future__ import annotations

import base64
import io
import math
import threading
import time
import uuid
from datetime import UTC, datetime

RENDER_DISTANCE = 32  # blocks from the eye
EYE_HEIGHT = 1.62  # a player's eye above the pose's y (the mod reports it as eyeY)
DEFAULT_FOV = 70  # Minecraft's default vertical field of view
DEFAULT_SIZE = (854, 480)
LOCK_SECONDS = 45.0  # protocol §3.11: the camera lock
MAX_ISSUED = 256  # capture ids remembered (then the set is cleared, as in the plugin)
_BAND_RAYS = 1 << 16  # rays traced together
_SKY_TOP, _SKY_BOTTOM = (120, 167, 255), (192, 216, 255)
_FACE_LIGHT = {0: 0.8, 1: 1.0, 2: 0.65}  # x faces, top/bottom (bottom darkened below), z faces


class CameraWorker:
    """Captures of one server run: ids issued, results, and the global camera lock."""

    def __init__(self, world):
        self._world = world
        self._guard = threading.Lock()
        self._results: dict[str, dict] = {}
        self._lock_holder: str | None = None
        self._lock_until = 0.0

    def busy(self) -> bool:
        with self._guard:
            return self._lock_holder is not None and time.monotonic() < self._lock_until

    def start(self, pose: dict, dimension: str, after_operation_id: str | None) -> dict:
        """Take the lock and start drawing; the answer is the mod's ``pending``."""
        capture_id = str(uuid.uuid4())
        with self._guard:
            if len(self._results) >= MAX_ISSUED:
                self._results.clear()
            self._results[capture_id] = {"status": "pending", "captureId": capture_id}
            self._lock_holder, self._lock_until = capture_id, time.monotonic() + LOCK_SECONDS
        thread = threading.Thread(
            target=self._draw,
            args=(capture_id, dict(pose), dimension, after_operation_id),
            name="mcb-camera",
            daemon=True,
        )
        thread.start()
        return {"status": "pending", "captureId": capture_id}

    def poll(self, capture_id: str) -> dict | None:
        """The capture's current answer (None for an id this run never issued); a final one releases the lock."""
        with self._guard:
            result = self._results.get(capture_id)
            if result is None:
                return None
            if result["status"] != "pending" and self._lock_holder == capture_id:
                self._lock_holder = None
            return dict(result)

    def _draw(self, capture_id: str, pose: dict, dimension: str, after_operation_id: str | None) -> None:
        try:
            result = capture(self._world, pose, dimension)
            result["captureId"] = capture_id
            if after_operation_id is not None:
                result["afterOperationId"] = after_operation_id
        except Exception as error:  # noqa: BLE001 - the mod reports its failures inside ok:true
            result = {
                "status": "error",
                "error": "readback_failed",
                "message": str(error) or type(error).__name__,
                "captureId": capture_id,
            }
        with self._guard:
            if capture_id in self._results:
                self._results[capture_id] = result


def capture(world, pose: dict, dimension: str = "minecraft:overworld") -> dict:
    """Draw the view from ``pose`` (validated: x, y, z, yaw, pitch, optional fov/width/height) as the mod's
    ``completed`` answer, without ``captureId``."""
    width = int(pose.get("width") or DEFAULT_SIZE[0])
    height = int(pose.get("height") or DEFAULT_SIZE[1])
    fov = int(pose.get("fov") or DEFAULT_FOV)
    eye = (float(pose["x"]), float(pose["y"]) + EYE_HEIGHT, float(pose["z"]))
    pixels = render_view(world, eye, float(pose["yaw"]), float(pose["pitch"]), fov, width, height)
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(pixels, "RGB").save(out, format="PNG")
    return {
        "status": "completed",
        "mimeType": "image/png",
        "imageBase64": base64.b64encode(out.getvalue()).decode(),
        "width": width,
        "height": height,
        "sourceWidth": width,
        "sourceHeight": height,
        "capturedAt": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "dimension": dimension,
        "x": eye[0],
        "y": float(pose["y"]),
        "z": eye[2],
        "eyeY": eye[1],
        "yaw": float(pose["yaw"]),
        "pitch": float(pose["pitch"]),
        "fov": fov,
        "readiness": "local_chunks_and_render_queue_stable",
        "serverRevisionVerified": False,
        "loadedChunkRadius": 1,
        "stabilizationTicks": 0,
        "stabilizationFrames": 0,
    }


def render_view(world, eye, yaw: float, pitch: float, fov: int, width: int, height: int):
    """An (height, width, 3) uint8 picture of the world seen from ``eye`` (Minecraft angles: yaw 0 looks south
    (+z), 90 west; pitch 90 looks straight down; ``fov`` is vertical, in degrees)."""
    import numpy as np

    from mcb.blocks.colours import INVISIBLE, block_colour

    low = [math.floor(c) - RENDER_DISTANCE for c in eye]
    high = [math.floor(c) + RENDER_DISTANCE for c in eye]
    low[1] = max(low[1], world.config.world_min_y)
    high[1] = min(high[1], world.config.world_max_y)
    cells, palette = _sample(world, low, high)
    colours = np.array([block_colour(s) for s in palette], dtype=np.float32)
    visible = np.array([s.split("[", 1)[0].rpartition(":")[2] not in INVISIBLE for s in palette], dtype=bool)

    yaw_r, pitch_r = math.radians(yaw), math.radians(pitch)
    forward = np.array([-math.sin(yaw_r) * math.cos(pitch_r), -math.sin(pitch_r), math.cos(yaw_r) * math.cos(pitch_r)])
    right = np.array([-math.cos(yaw_r), 0.0, -math.sin(yaw_r)])
    up = np.cross(right, forward)
    half = math.tan(math.radians(fov) / 2)
    u = ((np.arange(width) + 0.5) / width * 2 - 1) * half * width / height
    v = (1 - (np.arange(height) + 0.5) / height * 2) * half
    picture = np.empty((height, width, 3), dtype=np.uint8)
    band = max(1, _BAND_RAYS // width)  # rows traced together: small working arrays, bounded memory
    scene = (np.array(eye), cells, np.array(low), colours, visible)
    for top in range(0, height, band):
        rays = forward + u[None, :, None] * right + v[top : top + band, None, None] * up
        rays = (rays / np.linalg.norm(rays, axis=2, keepdims=True)).reshape(-1, 3)
        picture[top : top + band] = _trace(rays, *scene).reshape(-1, width, 3)
    return picture


def _trace(rays, origin, cells, base, colours, visible):
    """The colour each ray meets: voxel traversal (Amanatides & Woo) of all ``rays`` at once. Each round moves
    every ray still in flight into the next block on its path, so no block is skipped and the face it entered
    through is known exactly."""
    import numpy as np

    count = rays.shape[0]
    shape = np.array(cells.shape)
    step = np.where(rays >= 0, 1, -1)
    with np.errstate(divide="ignore"):
        delta = np.where(rays != 0, np.abs(1.0 / np.where(rays != 0, rays, 1.0)), np.inf)
        start = np.floor(origin).astype(np.int64)
        border = start + (step > 0)
        t_next = np.where(rays != 0, (border - origin) / np.where(rays != 0, rays, 1.0), np.inf)
    voxel = np.repeat(start[None, :], count, axis=0)
    result = np.zeros((count, 3), dtype=np.float32)
    hit = np.zeros(count, dtype=bool)
    distance = np.full(count, float(RENDER_DISTANCE), dtype=np.float32)
    active = np.arange(count)
    lights = np.array([_FACE_LIGHT[0], _FACE_LIGHT[1], _FACE_LIGHT[2]], dtype=np.float32)
    while active.size:
        axis = np.argmin(t_next[active], axis=1)
        t = t_next[active, axis]
        voxel[active, axis] += step[active, axis]
        t_next[active, axis] += delta[active, axis]
        index = voxel[active] - base
        inside = ((index >= 0) & (index < shape)).all(axis=1) & (t <= RENDER_DISTANCE)
        state = cells[tuple(np.where(inside[:, None], index, 0).T)]
        solid = inside & visible[state]
        if solid.any():
            rows = active[solid]
            face = axis[solid]
            light = lights[face]
            light = np.where((face == 1) & (step[rows, 1] > 0), 0.5, light)  # the bottom of a block, seen from below
            result[rows] = colours[state[solid]] * light[:, None]
            hit[rows] = True
            distance[rows] = t[solid]
        active = active[~solid & (t <= RENDER_DISTANCE)]
    sky = _sky(rays[:, 1])
    fog = np.clip((distance - RENDER_DISTANCE * 0.6) / (RENDER_DISTANCE * 0.4), 0, 1)[:, None]
    picture = np.where(hit[:, None], result * (1 - fog) + sky * fog, sky)
    return np.clip(picture, 0, 255).astype(np.uint8)


def _sky(dy):
    import numpy as np

    t = np.clip((dy + 0.2) / 1.2, 0, 1)[:, None]
    return np.array(_SKY_BOTTOM, dtype=np.float32) * (1 - t) + np.array(_SKY_TOP, dtype=np.float32) * t


def _sample(world, low, high):
    """The block states of the box ``low..high`` as an index array and its palette."""
    import numpy as np

    numbers: dict[str, int] = {}
    palette: list[str] = []
    size = [max(0, b - a + 1) for a, b in zip(low, high)]
    cells = np.zeros([max(1, n) for n in size], dtype=np.int32)
    if 0 in size:  # the eye is far above or below the world: only sky
        return cells, ["minecraft:air"]
    peek = world.peek
    for i, x in enumerate(range(low[0], high[0] + 1)):
        for k, z in enumerate(range(low[2], high[2] + 1)):
            column = cells[i, :, k]
            for j, y in enumerate(range(low[1], high[1] + 1)):
                state = peek((x, y, z))
                number = numbers.get(state)
                if number is None:
                    number = numbers[state] = len(palette)
                    palette.append(state)
                column[j] = number
    return cells, palette or ["minecraft:air"]
