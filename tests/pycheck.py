"""What the Python tests share: counted checks and running a program."""
import subprocess

failures = 0
checks = 0


def check(cond, what):
    """Counts a check; prints FAIL and what when cond is false."""
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("FAIL: " + what)
    return cond


def done(name):
    """Prints the closing line; returns the exit status."""
    print("%s: %d checks, %d failed" % (name, checks, failures))
    return 1 if failures else 0


def run(argv, env=None):
    """Runs argv; returns (exit status, stdout, stderr) as text."""
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
