# Sourced by explorations/*/run.sh on the device (the device tool's `run`, carry [".whl"]): moves to
# the repository root, installs the wheels epldb needs there (tools/gpu-run.sh says why), puts this
# tree's epldb on PYTHONPATH and sets OUT, the folder whose files the device tool brings back.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH="$PWD:/tmp/site" PYTHONUNBUFFERED=1
OUT="${OUT:-/tmp/out}"
mkdir -p "$OUT"

# tree_copy NAME: /tmp/NAME holds a copy of catalog/ and kernels/ for a patch.py to change. Its
# records are drafts: the copy's evidence is the exploration's, not the catalog's.
tree_copy() {
  rm -rf "/tmp/$1" && mkdir -p "/tmp/$1" && cp -r catalog kernels "/tmp/$1/"
  sed -i 's/^status: verified/status: draft/' "/tmp/$1"/catalog/realizations/*/*.yaml
}
