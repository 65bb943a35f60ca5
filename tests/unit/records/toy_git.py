"""For the history tests: a git repository made in a test's folder, with commits numbered as the tests name them."""

import yaml

from icdenoise.records.history import git_in

WHO = ["-c", "user.email=a@b", "-c", "user.name=a", "-c", "commit.gpgsign=false"]  # a committer, whatever git's config


class ToyGit:
    """`git(arguments)` runs git in `root` (a new repository); `commit(number, files)` writes the files (path → text,
    or a mapping written as YAML), commits them as "commit <number>" and keeps the hash in `commits[number]`."""

    def __init__(self, root):
        self.root, self.git, self.commits = root, git_in(root), {}
        self.git(["init", "-q"], b"")

    def write(self, files):
        for path, content in files.items():
            (self.root / path).parent.mkdir(parents=True, exist_ok=True)
            (self.root / path).write_text(content if isinstance(content, str) else yaml.safe_dump(content, sort_keys=False))
        self.git(["add", "-A"], b"")

    def commit(self, number, files):
        self.write(files)
        self.run("commit", "-q", "-m", f"commit {number}")
        self.commits[number] = self.head()

    def run(self, *arguments):
        """A git command as the committer (`WHO`), its output as text."""
        return self.git([*WHO, *arguments], b"").decode()

    def head(self):
        return self.run("rev-parse", "HEAD").strip()
