"""Walk the straight segment from start to goal across polygons (in XY).

When it stays on usable polygons all the way to the goal polygon, the segment is an
edge of the search graph (start -> goal) costing its length times each crossed polygon's
stance multiplier; the polygons crossed and the edges between them are kept so the path
can be rebuilt from them.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import hot_kernel


@hot_kernel
def straight_walk(vertices, polygons, neighbours, poly_nv, poly_stance, stance_allowed,
                  stance_cost, sp, spos, gp, gpos, out_polys, out_left, out_right):
    """Takes the QueryData arrays it reads one by one (see batch_kernel.solve_batch).

    Returns (cost, count): cost is inf when the segment leaves usable polygons or
    reaches the goal's XY in another polygon than gp. ``out_polys[:count]`` lists the
    polygons crossed; ``out_left/right[i]`` is the edge from polygon i into i+1.
    """
    sx = spos[0]
    sy = spos[1]
    dx = gpos[0] - sx
    dy = gpos[1] - sy
    length = math.sqrt(dx * dx + dy * dy + (gpos[2] - spos[2]) ** 2)
    limit = out_polys.shape[0]
    p = sp
    t_in = 0.0
    cost = 0.0
    count = 0
    while count < limit:
        out_polys[count] = p
        count += 1
        mult = stance_cost[poly_stance[p]]
        nv = poly_nv[p]
        t_out = np.inf
        edge = -1
        for i in range(nv):
            a = polygons[p, i]
            b = polygons[p, (i + 1) % nv]
            ex = vertices[b, 0] - vertices[a, 0]
            ey = vertices[b, 1] - vertices[a, 1]
            # inside edge i while cross(e, s + t*D - a) >= 0; leaving when it decreases
            rate = ex * dy - ey * dx
            if rate >= 0.0:
                continue
            t = (ex * (sy - vertices[a, 1]) - ey * (sx - vertices[a, 0])) / -rate
            if t < t_out:
                t_out = t
                edge = i
        if t_out >= 1.0:
            if p != gp:
                return np.inf, count
            cost += (1.0 - t_in) * length * mult
            return cost, count
        t_out = max(t_out, t_in)
        cost += (t_out - t_in) * length * mult
        q = neighbours[p, edge]
        if q < 0 or not stance_allowed[poly_stance[q]]:
            return np.inf, count
        a = polygons[p, edge]
        b = polygons[p, (edge + 1) % nv]
        for j in range(3):
            out_left[count - 1, j] = vertices[b, j]
            out_right[count - 1, j] = vertices[a, j]
        t_in = t_out
        p = q
    return np.inf, count
