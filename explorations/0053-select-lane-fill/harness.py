from pathlib import Path
import sys, time, importlib, json, math
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from epldb.catalog import load as load_catalog
choose = importlib.import_module("epldb.select.choose")
ev = importlib.import_module("epldb.select.evaluate")
from epldb.select.choose import Selector
from epldb.evidence import load_evidence
from pathlib import Path
from collections import Counter, defaultdict

_lab = None; _evd = None
def lab():
    global _lab, _evd
    if _lab is None:
        _lab = load_catalog(Path(__file__).resolve().parents[2])
        _evd = load_evidence(_lab.root, _lab, run_kind="bench", kind="realization")
    return _lab, _evd

def run(model_cls=None, verbose=False, subjects=None):
    l, e = lab()
    orig = choose.RealizationModel
    if model_cls is not None:
        choose.RealizationModel = model_cls
    try:
        s = Selector(l, evidence=e)
        r = ev.evaluate(l, subjects, s)
    finally:
        choose.RealizationModel = orig
    by = defaultdict(list)
    for c in r.cells: by[c.subject].append(c.ratio)
    line = " ".join(f"{k[:8]}={sum(x<=1.05 for x in v)/len(v):.2f}" for k, v in sorted(by.items()))
    print(f"near {r.share_near:.3f} far {sum(c.ratio<=1.15 for c in r.cells)/len(r.cells):.3f} worst {r.worst:.2f} n={len(r.cells)}")
    if verbose: print(line)
    return r
