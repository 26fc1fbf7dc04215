# lit configuration for ktune's rewrite-rule and CLI tests.
import os
import shutil
import subprocess

import lit.formats

config.name = "ktune"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".cu", ".test", ".json"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ktune_binary_dir, "test", "lit")

config.environment["PATH"] = os.pathsep.join(
    [config.ktune_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
# Keep the tests' compile cache inside the build tree.
config.environment["KTUNE_CACHE_DIR"] = os.path.join(config.ktune_binary_dir, "test", "lit", "cache")
# ktune-refactor: no detached preamble builds while tests run (the preamble
# cache has its own test).
config.environment["KTUNE_PREAMBLE_BUILD"] = "never"

config.substitutions.append(("%examples", os.path.join(config.ktune_source_dir, "examples")))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
# Recorded tuning spaces (test/data/t4); a test that needs them fails without them.
config.substitutions.append(("%testdata", config.test_data_dir))
config.substitutions.append(("%python", shutil.which("python3") or "python3"))
# A Python with torch for bench/e2e's CPU paths (Debian's python3-torch is
# for the system Python, which may not be the python3 on PATH).
for candidate in [shutil.which("python3"), "/usr/bin/python3"]:
    if candidate and subprocess.run([candidate, "-c", "import torch"],
                                    capture_output=True).returncode == 0:
        config.available_features.add("torch")
        config.substitutions.append(("%torch_python", candidate))
        break
# ktune-tune as built without CUDA (no-cuda.test).
nocuda = os.path.join(config.ktune_tools_dir, "ktune-tune-nocuda")
config.substitutions.append(("%ktune-tune-nocuda", nocuda if os.path.exists(nocuda) else "ktune-tune"))
# Fixtures, replay server and scripted planners of the planner tests.
config.substitutions.append(("%planner", os.path.join(config.ktune_source_dir, "test", "planner")))
config.substitutions.append(("%scripts", os.path.join(config.ktune_source_dir, "scripts")))

if config.enable_clang:
    config.available_features.add("clang")
    # ktune-refactor --planner (the LLM planner seam) once the driver has it.
    refactor = os.path.join(config.ktune_tools_dir, "ktune-refactor")
    if os.path.exists(refactor):
        try:
            usage = subprocess.run([refactor, "--help"], capture_output=True,
                                   text=True, timeout=120).stdout
        except (OSError, subprocess.SubprocessError):
            usage = ""
        if "--planner" in usage:
            config.available_features.add("refactor-planner")
# The clang-tidy module (lib/Tidy) and the runner of its tests.
tidy_plugin = os.path.join(config.ktune_binary_dir, "lib", "KtuneTidy.so")
clang_tidy = shutil.which("clang-tidy-19")
if config.enable_clang and clang_tidy and os.path.exists(tidy_plugin):
    config.available_features.add("clang-tidy")
    config.substitutions.append(("%ktune_tidy_plugin", tidy_plugin))
    config.substitutions.append(("%check_ktune_tidy", "%s %s --plugin %s --filecheck %s" % (
        shutil.which("python3") or "python3",
        os.path.join(config.ktune_source_dir, "test", "tidy", "check_ktune_tidy.py"),
        tidy_plugin, os.path.join(config.llvm_tools_dir, "FileCheck"))))
if shutil.which("clang-apply-replacements-19"):
    config.available_features.add("clang-apply-replacements")
if config.enable_cuda:
    config.available_features.add("cuda-toolkit")
if getattr(config, "have_curl", False):
    config.available_features.add("curl")
# CUDA toolkit headers that ktune-refactor can parse against (cub and
# friends); without them it falls back to its shim header.
for root in [os.environ.get("CUDA_PATH", ""), os.environ.get("CUDA_HOME", ""),
             "/usr/local/cuda"]:
    if root and os.path.exists(os.path.join(root, "include", "cuda_runtime.h")):
        config.available_features.add("cuda-headers")
        break
if config.nvcc and os.path.exists(config.nvcc):
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", config.nvcc))

# A usable NVIDIA GPU (tests that need one REQUIRE it, and tests of the
# no-GPU behaviour are UNSUPPORTED with it).
import subprocess
try:
    if subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=30).returncode == 0:
        config.available_features.add("gpu")
except (OSError, subprocess.SubprocessError):
    pass
