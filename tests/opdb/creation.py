"""Op database: factories and random ops are tested in their own suites."""

SKIP: dict[str, str] = {
    **{n: "factory: tests/test_creation.py" for n in (
        "zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "eye")},
    **{n: "random: tests/test_creation.py, tests/test_random.py" for n in (
        "rand", "randn", "randint", "normal_", "uniform_", "randperm", "normal", "bernoulli",
        "bernoulli_", "poisson", "multinomial", "exponential_", "geometric_", "log_normal_",
        "cauchy_", "random_", "binomial")},
}
