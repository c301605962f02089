"""scripts/bench_links.py's ``--by-outcome`` figures: where the link search's first pass
spends its time, by what each sample found."""

from __future__ import annotations

import numpy as np
from link_levels import LEVELS
from script_modules import load_script

from blender_navjump.core import BakeSettings, bake
from blender_navjump.core.links import search_stride
from blender_navjump.core.settings import link_sample_step

bench_links = load_script("bench_links")


def _by_outcome(name):
    level = LEVELS[name]
    v, t = level.make()
    settings = BakeSettings(links_enabled=True, **level.settings)
    return bench_links.search_by_outcome(np.asarray(v, np.float64), t, settings, reps=1), \
        bake(np.asarray(v, np.float64), t, settings)


def test_outcomes_cover_the_first_pass_and_find_the_links():
    out, nm = _by_outcome("gap and ledge")
    assert nm.link_kind.size >= 2
    classes = [out[name]["samples"] for name in bench_links.OUTCOMES]
    assert sum(classes) == out["first_pass_samples"]
    # every stride-th sample of the bake's border samples
    s = nm.stats["links_info"]["samples"]
    stride = search_stride(2.0 * BakeSettings().agent_radius,
                           link_sample_step(BakeSettings(), BakeSettings().cell_size))
    assert out["first_pass_samples"] == -(-s // stride)
    assert out["landing"]["samples"] > 0
    assert out["landing"]["us_per_sample"] > 0.0
    assert 0.0 < out["settle_us_per_sample"]


def test_a_level_without_links_has_no_landing_sample():
    out, nm = _by_outcome("lone platform")
    assert nm.link_kind.size == 0
    assert out["landing"]["samples"] == 0 and out["landing"]["us_per_sample"] is None
    assert out["nothing_in_reach"]["samples"] + out["refused"]["samples"] \
        == out["first_pass_samples"] > 0


def test_main_adds_the_outcomes_on_request(capsys):
    import json

    small = ["--terraced", "6", "--subdiv", "1", "--tile-runs", "1"]
    assert bench_links.main([*small, "--by-outcome", "--outcome-reps", "1"]) == 0
    (result,) = json.loads(capsys.readouterr().out)["results"]
    out = result["search_by_outcome"]
    assert out["first_pass_samples"] == sum(out[name]["samples"] for name in
                                            bench_links.OUTCOMES) > 0
    assert bench_links.main(small) == 0
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert "search_by_outcome" not in result
