"""The launch-plan expression language: integer arithmetic over shape and parameter names.

A realization's launch plan is data, not code. Its grid, block, shared-memory and argument fields
are written in this tiny language and evaluated once per shape and parameter point::

    expr  := term (("+" | "-") term)*
    term  := unary (("*" | "//" | "%") unary)*
    unary := "-" unary | atom
    atom  := INTEGER | NAME | NAME "(" expr ("," expr)* ")" | "(" expr ")"

Functions: ``min(a, b, ...)``, ``max(a, b, ...)``, ``ceil_div(a, b)``, ``round_up(a, b)``.
``//`` and ``%`` are floor division and modulo, as in Python. There is no ``/``: a launch
dimension is an integer, and silently truncating a true division is how grids come out one block
short.

Expressions are bounded: at most ``MAX_LENGTH`` characters, ``MAX_DEPTH`` nested parentheses,
signs or calls, and ``MAX_DIGITS`` digits a literal. The parser, the compiled closures and the
name walk recurse once a level (a chain of thousands ended in a RecursionError), Python refuses
integers of over 4300 digits, and no launch dimension needs more; with no power or shift operator
a value stays a few hundred digits at most.

Nothing here calls ``eval`` or Python's parser: the tokenizer and the recursive-descent parser are
below, and every error is a value (:class:`ExprError`) carrying the 1-based column inside the
expression, so that callers can point at the field and the character.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Union

#: Functions of the language and how many arguments each takes (None: two or more).
FUNCTIONS: dict[str, int | None] = {
    "ceil_div": 2,
    "max": None,
    "min": None,
    "round_up": 2,
}


#: The longest expression: the catalog's longest is 87 characters.
MAX_LENGTH = 400
#: The deepest nesting of parentheses, signs and calls: the catalog's deepest is 3.
MAX_DEPTH = 32
#: The most digits an integer literal may have: launch limits and sizes fit in 20.
MAX_DIGITS = 40


@dataclass(frozen=True)
class ExprError:
    """Why an expression could not be parsed or evaluated; ``col`` is 1-based within the text."""

    col: int
    message: str


# --- syntax tree ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Num:
    value: int
    col: int


@dataclass(frozen=True)
class Name:
    name: str
    col: int


@dataclass(frozen=True)
class Neg:
    operand: "Node"
    col: int


@dataclass(frozen=True)
class BinOp:
    op: str  # one of + - * // %
    left: "Node"
    right: "Node"
    col: int  # column of the operator


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple["Node", ...]
    col: int  # column of the function name


Node = Union[Num, Name, Neg, BinOp, Call]


@dataclass(frozen=True)
class Expr:
    """A parsed expression: its source text and its tree."""

    text: str
    node: Node

    def names(self) -> list[tuple[str, int]]:
        """Every name the expression reads, with its column, in order of appearance."""
        return list(_names(self.node))

    @property
    def bare_name(self) -> str | None:
        """The name, if the whole expression is one name (how array arguments are written)."""
        return self.node.name if isinstance(self.node, Name) else None


def _names(node: Node) -> Iterator[tuple[str, int]]:
    if isinstance(node, Name):
        yield node.name, node.col
    elif isinstance(node, Neg):
        yield from _names(node.operand)
    elif isinstance(node, BinOp):
        yield from _names(node.left)
        yield from _names(node.right)
    elif isinstance(node, Call):
        for a in node.args:
            yield from _names(a)


# --- tokenizer -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Token:
    kind: str  # "int", "name", "op", "end"
    text: str
    col: int

    def describe(self) -> str:
        if self.kind == "end":
            return "the end of the expression"
        if self.kind == "int":
            return f"the number {self.text}"
        if self.kind == "name":
            return f"the name '{self.text}'"
        return f"'{self.text}'"


_SINGLE = set("+-*%(),")


def tokenize(text: str) -> list[Token] | ExprError:
    """Split ``text`` into tokens, ending with an ``end`` token; or the first bad character."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        col = i + 1
        if ch in " \t":
            i += 1
        elif ch.isascii() and ch.isdigit():
            j = i
            while j < n and text[j].isascii() and text[j].isdigit():
                j += 1
            if j - i > MAX_DIGITS:
                return ExprError(col, f"a number of {j - i} digits, over the {MAX_DIGITS} an expression may write")
            tokens.append(Token("int", text[i:j], col))
            i = j
        elif ch.isascii() and (ch.isalpha() or ch == "_"):
            j = i
            while j < n and text[j].isascii() and (text[j].isalnum() or text[j] == "_"):
                j += 1
            tokens.append(Token("name", text[i:j], col))
            i = j
        elif text.startswith("//", i):
            tokens.append(Token("op", "//", col))
            i += 2
        elif ch == "/":
            return ExprError(col, "'/' is not an operator here: integer division is written '//'")
        elif ch in _SINGLE:
            tokens.append(Token("op", ch, col))
            i += 1
        else:
            return ExprError(col, f"unexpected character {ch!r}")
    tokens.append(Token("end", "", n + 1))
    return tokens


# --- parser ----------------------------------------------------------------------------------------


class _Fail(Exception):
    """Internal unwinding of the recursive descent; never escapes :func:`parse`."""

    def __init__(self, error: ExprError) -> None:
        super().__init__(error.message)
        self.error = error


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0

    def nest(self, at: Token) -> None:
        """One level deeper (a parenthesis, a sign, a call); refused past MAX_DEPTH."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Fail(ExprError(at.col, f"nested deeper than {MAX_DEPTH} levels; simplify the expression"))

    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def take(self) -> Token:
        t = self.tokens[self.pos]
        self.pos += 1
        return t

    def at_op(self, *ops: str) -> bool:
        return self.tok.kind == "op" and self.tok.text in ops

    def expr(self) -> Node:
        node = self.term()
        while self.at_op("+", "-"):
            op = self.take()
            node = BinOp(op.text, node, self.term(), op.col)
        return node

    def term(self) -> Node:
        node = self.unary()
        while self.at_op("*", "//", "%"):
            op = self.take()
            node = BinOp(op.text, node, self.unary(), op.col)
        return node

    def unary(self) -> Node:
        if self.at_op("-"):
            op = self.take()
            self.nest(op)
            node = Neg(self.unary(), op.col)
            self.depth -= 1
            return node
        return self.atom()

    def atom(self) -> Node:
        t = self.tok
        if t.kind == "int":
            self.take()
            return Num(int(t.text), t.col)
        if t.kind == "name":
            self.take()
            if self.at_op("("):
                return self.call(t)
            if t.text in FUNCTIONS:
                raise _Fail(ExprError(t.col, f"'{t.text}' is a function: call it as {t.text}(a, b)"))
            return Name(t.text, t.col)
        if self.at_op("("):
            open_ = self.take()
            self.nest(open_)
            node = self.expr()
            self.close(open_)
            self.depth -= 1
            return node
        raise _Fail(ExprError(t.col, f"expected a number, a name or '(' but found {t.describe()}"))

    def close(self, open_: Token) -> None:
        if not self.at_op(")"):
            raise _Fail(
                ExprError(
                    self.tok.col,
                    f"expected ')' to close the '(' at column {open_.col} but found {self.tok.describe()}",
                )
            )
        self.take()

    def call(self, name: Token) -> Node:
        open_ = self.take()  # "("
        if name.text not in FUNCTIONS:
            known = ", ".join(sorted(FUNCTIONS))
            raise _Fail(ExprError(name.col, f"unknown function '{name.text}' (known: {known})"))
        self.nest(name)
        args = [self.expr()]
        while self.at_op(","):
            self.take()
            args.append(self.expr())
        self.close(open_)
        self.depth -= 1
        arity = FUNCTIONS[name.text]
        if arity is not None and len(args) != arity:
            raise _Fail(ExprError(name.col, f"{name.text}() takes {arity} arguments, got {len(args)}"))
        if arity is None and len(args) < 2:
            raise _Fail(ExprError(name.col, f"{name.text}() takes at least 2 arguments, got {len(args)}"))
        return Call(name.text, tuple(args), name.col)


def parse(source: str | int) -> Expr | ExprError:
    """Parse one expression (a YAML integer is accepted as its own literal)."""
    if isinstance(source, bool):  # bool is an int subclass; True is not a launch dimension
        return ExprError(1, f"{source!r} is a boolean, not an expression")
    if isinstance(source, int):
        return Expr(str(source), Num(source, 1))
    if not isinstance(source, str):
        return ExprError(1, f"expected a string or an integer, got {type(source).__name__}")
    return _parse_text(source)


@functools.lru_cache(maxsize=4096)
def _parse_text(source: str) -> Expr | ExprError:
    """parse() of a string, memoized: a catalog load resolves the same few dozen launch
    expressions for every parameter point and shape (tens of thousands of parses), and the result
    is immutable (frozen dataclasses)."""
    if len(source) > MAX_LENGTH:
        return ExprError(1, f"the expression is {len(source)} characters, over the {MAX_LENGTH} one may "
                         "have; name the parts as parameters or simplify it")
    tokens = tokenize(source)
    if isinstance(tokens, ExprError):
        return tokens
    if tokens[0].kind == "end":
        return ExprError(1, "empty expression")
    p = _Parser(tokens)
    try:
        node = p.expr()
        if p.tok.kind != "end":
            raise _Fail(ExprError(p.tok.col, f"unexpected {p.tok.describe()} after a complete expression"))
    except _Fail as fail:
        return fail.error
    return Expr(source, node)


# --- evaluation --------------------------------------------------------------------------------------


def evaluate(expr: Expr, env: Mapping[str, object]) -> int | ExprError:
    """The value of ``expr`` with names taken from ``env``; the first error otherwise."""
    try:
        run = _EVALUATORS.get(expr.text)
        if run is None:  # the text decides the tree, so it keys the closures (a tree hashes node by node)
            run = _EVALUATORS[expr.text] = _compiled(expr.node)
        return run(env)
    except _Fail as fail:  # building (an unknown function) or running
        return fail.error


def _ceil_div(a: int, b: int, col: int, func: str) -> int:
    if b <= 0:
        raise _Fail(ExprError(col, f"{func}() needs a positive divisor, got {b}"))
    return -(-a // b)


Evaluator = Callable[[Mapping[str, object]], int]
_EVALUATORS: dict[str, Evaluator] = {}


def _compiled(node: Node) -> Evaluator:
    """The tree as nested closures, built once per tree: a catalog load evaluates the same few
    dozen expressions tens of thousands of times, and walking the tree each time (a type test per
    node) was most of a load's launch-plan lint. Operands evaluate left to right, so the first
    error is the one reported, as a walk would."""
    if isinstance(node, Num):
        value = node.value
        return lambda env: value
    if isinstance(node, Name):
        return _read_name(node)
    if isinstance(node, Neg):
        operand = _compiled(node.operand)
        return lambda env: -operand(env)
    if isinstance(node, BinOp):
        return _binop(node)
    return _call(node)


def _read_name(node: Name) -> Evaluator:
    name, col = node.name, node.col

    def read(env: Mapping[str, object]) -> int:
        if name not in env:
            known = ", ".join(sorted(env)) or "none"
            raise _Fail(ExprError(col, f"unknown name '{name}' (known: {known})"))
        value = env[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise _Fail(ExprError(col, f"'{name}' is {value!r}, not an integer"))
        return value
    return read


def _binop(node: BinOp) -> Evaluator:
    left, right, op, col = _compiled(node.left), _compiled(node.right), node.op, node.col
    if op == "+":
        return lambda env: left(env) + right(env)
    if op == "-":
        return lambda env: left(env) - right(env)
    if op == "*":
        return lambda env: left(env) * right(env)

    def divide(env: Mapping[str, object]) -> int:
        a, b = left(env), right(env)
        if b == 0:
            raise _Fail(ExprError(col, f"division by zero in '{op}'"))
        return a // b if op == "//" else a % b
    return divide


def _call(node: Call) -> Evaluator:
    args, func, col = tuple(_compiled(a) for a in node.args), node.func, node.col
    if func == "min":
        return lambda env: min([a(env) for a in args])
    if func == "max":
        return lambda env: max([a(env) for a in args])
    if func in ("ceil_div", "round_up"):
        first, second = args
        scale = func == "round_up"

        def divide_up(env: Mapping[str, object]) -> int:
            a, b = first(env), second(env)
            q = _ceil_div(a, b, col, func)
            return q * b if scale else q
        return divide_up
    raise _Fail(ExprError(col, f"unknown function '{func}'"))  # unreachable after parse
