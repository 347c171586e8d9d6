"""A UCI engine on a pipe, for the tools that time it by hand (no python-chess in between,
whose own bookkeeping would be part of every figure)."""

import shlex
import subprocess


class Engine:
    """An engine process started from a command line, its stderr discarded."""

    def __init__(self, command):
        self.command = command
        self.process = subprocess.Popen(
            shlex.split(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )

    def send(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def lines_until(self, prefix):
        """Yields each line read, up to and including the first that starts with `prefix`."""
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"{self.command}: ended before {prefix!r}")
            yield line
            if line.startswith(prefix):
                return

    def wait_for(self, prefix):
        """Reads up to the first line starting with `prefix`, and returns it."""
        for line in self.lines_until(prefix):
            pass
        return line

    def start(self):
        """The handshake: `uci`, then `isready`, answered."""
        self.send("uci")
        self.wait_for("uciok")
        self.send("isready")
        self.wait_for("readyok")

    def new_game(self):
        """`ucinewgame`, and wait until the engine has set it up."""
        self.send("ucinewgame")
        self.send("isready")
        self.wait_for("readyok")

    def quit(self):
        self.send("quit")
        self.process.wait(timeout=5)
