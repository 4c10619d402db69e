"""Thin command modules: parse arguments, call one core function, hand the result to ``mcb.terminal``."""
