"""The launch-plan language: what evaluates to what, and the exact located error for bad input."""

from __future__ import annotations

import pytest

from epldb.launch import ExprError, evaluate, parse

ENV = {"n": 4097, "block": 256, "items": 4, "dtype": "float32", "flag": True}


@pytest.mark.parametrize(
    "text, value",
    [
        ("1", 1),
        (7, 7),
        ("n", 4097),
        ("ceil_div(n, block * items)", 5),  # 4097 / 1024 rounds up to 5
        ("round_up(n, 32)", 4128),
        ("n // block", 16),
        ("n % block", 1),
        ("-n // block", -17),  # floor division, as in Python
        ("-(n - 1)", -4096),
        ("--3", 3),
        ("2 + 3 * 4", 14),
        ("(2 + 3) * 4", 20),
        ("10 - 4 - 3", 3),  # left associative
        ("100 // 10 // 5", 2),
        ("min(block, 128) + max(1, 2, 3)", 131),
        ("min(n, 1)", 1),
        ("  block*items  ", 1024),
        ("max(ceil_div(n, 1024), 1)", 5),
    ],
)
def test_evaluates(text: str | int, value: int) -> None:
    expr = parse(text)
    assert not isinstance(expr, ExprError), expr
    assert evaluate(expr, ENV) == value


@pytest.mark.parametrize(
    "text, col, message",
    [
        ("", 1, "empty expression"),
        ("   ", 1, "empty expression"),
        ("n / 2", 3, "'/' is not an operator here: integer division is written '//'"),
        ("n + $", 5, "unexpected character '$'"),
        ("n ** 2", 4, "expected a number, a name or '(' but found '*'"),
        ("ceil_div(n, block * items", 26, "expected ')' to close the '(' at column 9 but found the end of the expression"),
        ("(n + 1", 7, "expected ')' to close the '(' at column 1 but found the end of the expression"),
        ("n + 1)", 6, "unexpected ')' after a complete expression"),
        ("n block", 3, "unexpected the name 'block' after a complete expression"),
        ("n +", 4, "expected a number, a name or '(' but found the end of the expression"),
        ("sqrt(n)", 1, "unknown function 'sqrt' (known: ceil_div, max, min, round_up)"),
        ("ceil_div(n)", 1, "ceil_div() takes 2 arguments, got 1"),
        ("1 + round_up(n, 2, 3)", 5, "round_up() takes 2 arguments, got 3"),
        ("min(n)", 1, "min() takes at least 2 arguments, got 1"),
        ("max + 1", 1, "'max' is a function: call it as max(a, b)"),
        ("f(,)", 1, "unknown function 'f' (known: ceil_div, max, min, round_up)"),
        ("min(,1)", 5, "expected a number, a name or '(' but found ','"),
        (True, 1, "True is a boolean, not an expression"),
        ("1.5", 2, "unexpected character '.'"),
    ],
)
def test_parse_errors_are_located(text: str, col: int, message: str) -> None:
    assert parse(text) == ExprError(col, message)


@pytest.mark.parametrize(
    "text, col, message",
    [
        ("ceil_div(n, blok)", 13, "unknown name 'blok' (known: block, dtype, flag, items, n)"),
        ("n // (block - 256)", 3, "division by zero in '//'"),
        ("n % 0", 3, "division by zero in '%'"),
        ("1 + ceil_div(n, 0)", 5, "ceil_div() needs a positive divisor, got 0"),
        ("round_up(n, -32)", 1, "round_up() needs a positive divisor, got -32"),
        ("block * dtype", 9, "'dtype' is 'float32', not an integer"),
        ("flag + 1", 1, "'flag' is True, not an integer"),
    ],
)
def test_evaluation_errors_are_located(text: str, col: int, message: str) -> None:
    expr = parse(text)
    assert not isinstance(expr, ExprError)
    assert evaluate(expr, ENV) == ExprError(col, message)


def test_names_and_bare_name() -> None:
    expr = parse("ceil_div(n, block * items)")
    assert not isinstance(expr, ExprError)
    assert expr.names() == [("n", 10), ("block", 13), ("items", 21)]
    assert expr.bare_name is None
    bare = parse(" x ")
    assert not isinstance(bare, ExprError) and bare.bare_name == "x"


def test_no_python_evaluation() -> None:
    # Python syntax that would do something under eval is simply not in the language.
    for text in ("__import__('os')", "n if n else 1", "[n]", "n.bit_length()", "lambda: 1"):
        assert isinstance(parse(text), ExprError), text
