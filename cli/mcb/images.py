"""PNG pictures as the plugin sends them (base64 in ``imageBase64``): the one check every face makes.

    png = png_from_base64("camera_capture", result["imageBase64"], result.get("mimeType"))

A picture that does not decode, is not a PNG or is larger than the bridge allows (12,000,000 base64 characters,
protocol §8.1) is the server's fault: :class:`mcb.errors.ServerError` with code ``invalid_image``.
"""

from __future__ import annotations

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_IMAGE_BASE64 = 12_000_000  # the bridge's limit on one image's base64 text, for every tool


def is_png(data: bytes) -> bool:
    return data.startswith(PNG_SIGNATURE)


def png_from_base64(method: str, encoded, mime: str | None = "image/png", *, allow_empty: bool = False) -> bytes:
    """The PNG bytes of ``encoded``; ``mime`` None skips the type check, ``allow_empty`` lets "no picture" pass."""
    import base64
    import binascii

    from mcb.errors import ServerError

    def broken(why: str) -> ServerError:
        return ServerError(
            f"{method}: {why}",
            code="invalid_image",
            hint="the server sent a picture that cannot be used; no request can fix it",
        )

    if allow_empty and not encoded:
        return b""
    if mime is not None and mime != "image/png":
        raise broken(f"the image type is {mime!r}, not image/png")
    if not isinstance(encoded, str) or not encoded or len(encoded) > MAX_IMAGE_BASE64:
        raise broken(f"the image data is missing or over {MAX_IMAGE_BASE64} base64 characters")
    try:
        png = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise broken("the image data is not valid base64") from None
    if not is_png(png):
        raise broken("the image data is not a PNG")
    return png
