"""Op database: factories and random ops are tested in their own suites."""

SKIP: dict[str, str] = {
    **{n: "factory: tests/test_creation.py" for n in (
        "zeros", "ones", "empty", "full", "arange", "linspace", "eye")},
    **{n: "random: tests/test_creation.py" for n in (
        "rand", "randn", "randint", "normal_", "uniform_")},
}
