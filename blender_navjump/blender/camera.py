"""Camera maths for the headless overlay render, bpy-free: 4 x 4 row-major numpy matrices
in OpenGL clip conventions, so tests can project world points to pixels."""

from __future__ import annotations

import math

import numpy as np


def look_at(eye, target, up=(0.0, 0.0, 1.0)) -> np.ndarray:
    eye, target, up = (np.asarray(v, np.float64) for v in (eye, target, up))
    f = target - eye
    f /= np.linalg.norm(f)
    s = np.cross(f, up)
    if np.linalg.norm(s) < 1e-9:  # looking along up: pick another up
        s = np.cross(f, (0.0, 1.0, 0.0))
    s /= np.linalg.norm(s)
    u = np.cross(s, f)
    m = np.eye(4)
    m[0, :3], m[1, :3], m[2, :3] = s, u, -f
    m[:3, 3] = -m[:3, :3] @ eye
    return m


def perspective(fov_y: float, aspect: float, near: float, far: float) -> np.ndarray:
    f = 1.0 / math.tan(fov_y / 2.0)
    m = np.zeros((4, 4))
    m[0, 0], m[1, 1] = f / aspect, f
    m[2, 2] = (far + near) / (near - far)
    m[2, 3] = 2.0 * far * near / (near - far)
    m[3, 2] = -1.0
    return m


def orthographic(half_w: float, half_h: float, near: float, far: float) -> np.ndarray:
    m = np.eye(4)
    m[0, 0], m[1, 1] = 1.0 / half_w, 1.0 / half_h
    m[2, 2] = -2.0 / (far - near)
    m[2, 3] = -(far + near) / (far - near)
    return m


def fit_camera(bounds, size, view: str = "three_quarter",
               margin: float = 1.06) -> tuple[np.ndarray, np.ndarray]:
    """(view, projection) showing the box ``bounds`` (2, 3) in an image of ``size``.

    ``"top"``: orthographic, looking down, +Y up in the image. ``"three_quarter"``:
    perspective from the south-west, 40 degrees above the horizon.
    """
    lo, hi = (np.asarray(b, np.float64) for b in bounds)
    if not (np.isfinite(lo).all() and np.isfinite(hi).all()) or (hi - lo).max() <= 0:
        lo, hi = lo - 1.0, hi + 1.0
    centre = 0.5 * (lo + hi)
    ext = hi - lo
    aspect = size[0] / size[1]
    if view == "top":
        height = ext[2] + 10.0
        eye = centre + np.array([0.0, 0.0, height / 2 + 5.0])
        half_w = max(ext[0] / 2, ext[1] / 2 * aspect, 0.5) * margin
        v = look_at(eye, centre, up=(0.0, 1.0, 0.0))
        return v, orthographic(half_w, half_w / aspect, 0.1, height + 10.0)
    if view != "three_quarter":
        raise ValueError(f"unknown camera view {view!r}: 'top' or 'three_quarter'")
    fov = math.radians(40.0)
    azimuth, elevation = math.radians(-125.0), math.radians(40.0)
    direction = np.array([math.cos(elevation) * math.cos(azimuth),
                          math.cos(elevation) * math.sin(azimuth), math.sin(elevation)])
    # Camera axes, then the box corners in them (relative to the box centre).
    view0 = look_at(centre + direction, centre)
    right, up, back = view0[0, :3], view0[1, :3], view0[2, :3]
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                        for z in (lo[2], hi[2])]) - centre
    cx, cy, cz = corners @ right, corners @ up, corners @ back
    # Re-centre sideways on the box's extent (seen along the view), then back off until
    # every corner is inside both half-angles.
    shift = right * 0.5 * (cx.max() + cx.min()) + up * 0.5 * (cy.max() + cy.min())
    cx = cx - 0.5 * (cx.max() + cx.min())
    cy = cy - 0.5 * (cy.max() + cy.min())
    tan_y = math.tan(fov / 2) / margin
    tan_x = tan_y * aspect
    dist = float(np.max(np.maximum(cz + np.abs(cx) / tan_x, cz + np.abs(cy) / tan_y)))
    dist = max(dist, 1.0)
    target = centre + shift
    radius = 0.5 * float(np.linalg.norm(ext))
    world = corners + centre
    # Perspective makes near corners larger: a few passes centre and tighten the frame.
    for _ in range(4):
        near = max(0.05, dist - 2.0 * radius)
        proj = perspective(fov, aspect, near, dist + 2.0 * radius)
        h = np.concatenate([world, np.ones((8, 1))], axis=1) @ \
            (proj @ look_at(target + dist * back, target)).T
        ndc = h[:, :2] / h[:, 3:4]
        mid = 0.5 * (ndc.max(axis=0) + ndc.min(axis=0))
        half = 0.5 * (ndc.max(axis=0) - ndc.min(axis=0))
        target = target + right * mid[0] * dist * tan_x * margin \
            + up * mid[1] * dist * tan_y * margin
        dist *= max(float(half.max()) * margin, 0.05)
    near = max(0.05, dist - 2.0 * radius)
    return (look_at(target + dist * back, target),
            perspective(fov, aspect, near, dist + 2.0 * radius))


def project(points, view, proj, size) -> np.ndarray:
    """World points (N, 3) -> pixel coordinates (N, 2), origin at the top-left corner."""
    p = np.asarray(points, np.float64).reshape(-1, 3)
    h = np.concatenate([p, np.ones((p.shape[0], 1))], axis=1) @ (proj @ view).T
    ndc = h[:, :2] / h[:, 3:4]
    x = (ndc[:, 0] + 1.0) * 0.5 * size[0]
    y = (1.0 - (ndc[:, 1] + 1.0) * 0.5) * size[1]
    return np.stack([x, y], axis=1)
