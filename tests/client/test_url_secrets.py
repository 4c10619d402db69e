"""A secret in a server URL (userinfo or a query value) never appears in any output: errors, logs, config show."""

from __future__ import annotations

import json

import pytest
from rpc_testkit import FaultProxy, free_port

SECRET = "S3cr3tValue42"
URLS = [
    f"http://user:{SECRET}@127.0.0.1:{{port}}",
    f"http://127.0.0.1:{{port}}/?token={SECRET}",
    f"http://127.0.0.1:{{port}}?{SECRET}",
    f"http://{SECRET}@127.0.0.1:{{port}}",
    f"http://127.0.0.1:{{port}}/#{SECRET}",
    f"http://u:{SECRET}@[::1",  # malformed: still named in the refusal, still redacted
]


@pytest.mark.parametrize("template", URLS)
def test_no_output_repeats_a_secret_of_the_server_url(cli, monkeypatch, template):
    url = template.format(port=free_port())
    outputs = []
    for args in (
        ("--server", url, "context"),
        ("--server", url, "-vv", "health", "--json"),
        ("--server", url, "config", "show"),
        ("--server", url, "config", "show", "--json"),
        ("config", "set", "server", url),
    ):
        result = cli(*args)
        outputs.append(result.stdout + result.stderr)
    monkeypatch.setenv("MCB_SERVER", url)
    for args in (("context", "--json"), ("config", "show")):
        result = cli(*args)
        outputs.append(result.stdout + result.stderr)
    assert outputs[0].startswith("error:") and "[redacted]" in outputs[0]
    for text in outputs:
        assert SECRET not in text


def test_config_show_marks_a_url_with_a_secret_as_broken(cli):
    url = f"http://user:{SECRET}@127.0.0.1:8765"
    result = cli("--server", url, "config", "show", "--json")
    assert result.exit_code == 0
    rows = {row["name"]: row for row in json.loads(result.stdout)["settings"]}
    assert "problem" in rows["server"] and SECRET not in result.stdout


def test_redact_url_keeps_what_is_not_secret():
    from mcb.redact import redact_url, redact_urls_in

    assert redact_url("http://127.0.0.1:8765") == "http://127.0.0.1:8765"
    assert redact_url("http://u:p@h:1/?a=1&b") == "http://[redacted]@h:1/?a=[redacted]&[redacted]"
    assert redact_urls_in("see https://x:y@h/?t=z now") == "see https://[redacted]@h/?t=[redacted] now"


def test_a_transport_message_redacts_the_url(live_server):
    """The client used directly (no config check): its messages redact the URL it was given."""
    from mcb.client import McbClient
    from mcb.errors import NetworkError

    with FaultProxy(live_server.url, lambda r: "drop") as proxy:
        url = proxy.url.replace("http://", f"http://u:{SECRET}@") + f"?k={SECRET}"
        with McbClient(url, agent_token="t" * 40) as client:
            with pytest.raises(NetworkError) as caught:
                client.operation_status("x")
    assert SECRET not in caught.value.message and SECRET not in json.dumps(caught.value.to_json())
