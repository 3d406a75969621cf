"""The build step pyproject.toml cannot say: `make` builds the library with
the CLI's commands (build/libkineta-py.so, release, no PGO), which goes into
the package as kineta/_kineta.so, where kineta._native looks first.  The
wheel is platform-specific since it carries that library.  Jobs: $KINETA_JOBS
(default 2)."""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        jobs = os.environ.get("KINETA_JOBS", "2")
        subprocess.run(["make", "-C", ROOT, "PGO=0", f"-j{jobs}", "python"], check=True)
        shutil.copy2(os.path.join(ROOT, "build", "libkineta-py.so"),
                     os.path.join(self.build_lib, "kineta", "_kineta.so"))


class WithLibrary(Distribution):
    def has_ext_modules(self):
        return True


# setuptools' own build tree beside make's build/ objects, not inside them
setup(cmdclass={"build_py": BuildWithLibrary}, distclass=WithLibrary,
      options={"build": {"build_base": "build/setuptools"}})
