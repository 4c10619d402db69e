"""The baseline of bench_startup.py: the smallest useful Typer app, two commands, asked for --help."""

import typer

app = typer.Typer()


@app.command()
def hello(name: str = "world") -> None:
    """Say hello."""
    print(name)


@app.command()
def bye() -> None:
    """Say bye."""


if __name__ == "__main__":
    app()
