"""The launch simulator: restitution, rest, surfaces of impacts."""

from __future__ import annotations

import numpy as np
import pytest

from footage.physics import G, Material, World, simulate


def test_drop_on_table_bounces_with_the_set_restitution_and_comes_to_rest():
    world = World(radius=12.0, table=Material(0.7, 0.3))
    traj = simulate(world, (0.0, 0.0, 212.0), (0.0, 0.0, 0.0), max_time=5.0)
    bounces = [i for i in traj.impacts if i.is_bounce]
    assert len(bounces) >= 3
    assert all(b.surface == "table" for b in bounces)
    first = bounces[0]
    assert first.vz_before == pytest.approx(-np.sqrt(2 * G * 200.0), rel=0.02)
    for b in bounces[:3]:
        assert b.vz_after / -b.vz_before == pytest.approx(0.7, abs=0.01)
    assert first.t == pytest.approx(np.sqrt(2 * 200.0 / G), abs=0.002)
    assert traj.still_time is not None
    final = traj.positions[-1]
    assert final[2] == pytest.approx(12.0, abs=0.1)
    assert np.hypot(final[0], final[1]) < 1e-6


def test_rolling_ball_slows_to_rest_and_spin_matches_rolling():
    world = World(radius=10.0, table=Material(0.6, 0.4), rolling_resistance=0.03)
    traj = simulate(world, (0.0, 0.0, 10.0), (500.0, 0.0, 0.0), max_time=5.0)
    assert traj.still_time is not None
    assert not [i for i in traj.impacts if i.is_bounce]  # rolling contact is no bounce
    moved = traj.positions[-1][0]
    # sliding to rolling keeps 5/7 of the speed, then rolling resistance stops it
    v_roll = 500.0 * 5 / 7
    assert moved == pytest.approx(v_roll**2 / (2 * 0.03 * G), rel=0.25)


def _box_world(radius: float = 12.0) -> World:
    hx, hy, wall, rim, floor = 150.0, 110.0, 8.0, 55.0, 20.0
    solids = [
        ((-hx, hx, -hy, -hy + wall, 0.0, rim), "outer"),
        ((-hx, hx, hy - wall, hy, 0.0, rim), "outer"),
        ((-hx, -hx + wall, -hy + wall, hy - wall, 0.0, rim), "outer"),
        ((hx - wall, hx, -hy + wall, hy - wall, 0.0, rim), "outer"),
        ((-hx + wall, hx - wall, -hy + wall, hy - wall, 0.0, floor), "floor"),
        ((-2.0, 2.0, -hy + wall, hy - wall, floor, floor + 15.0), "partition"),
    ]
    return World(radius=radius, solids=solids, box_yaw_deg=30.0, box_center=(400.0, 50.0))


def test_drop_into_the_box_bounces_on_the_box_floor():
    world = _box_world()
    traj = simulate(world, (400.0 + 60 * np.cos(np.pi / 6), 50.0 + 60 * np.sin(np.pi / 6), 200.0), (0, 0, 0))
    bounces = [i for i in traj.impacts if i.is_bounce]
    assert bounces and bounces[0].surface == "box_floor"
    assert bounces[0].vz_after / -bounces[0].vz_before == pytest.approx(world.floor.restitution, abs=0.01)
    assert traj.positions[-1][2] == pytest.approx(20.0 + 12.0, abs=0.2)
    assert traj.entered_time is not None


def test_drop_on_a_wide_flat_rim_is_a_rim_bounce_and_a_wall_side_is_not_a_bounce():
    world = _box_world()
    world.solids[0] = ((-150.0, 150.0, -110.0, -70.0, 0.0, 55.0), "outer")  # a 40 mm rim
    world.box_yaw_deg = 0.0
    traj = simulate(world, (400.0, 50.0 - 90.0, 150.0), (0, 0, 0))
    bounces = [i for i in traj.impacts if i.is_bounce]
    assert bounces[0].surface == "box_rim"
    assert traj.positions[-1][2] == pytest.approx(55.0 + 12.0, abs=0.2)
    # thrown horizontally at the outer side of a wall: an impact, but no vertical reversal
    traj = simulate(world, (100.0, 50.0, 30.0), (1500.0, 0.0, 0.0), max_time=0.3)
    walls = [i for i in traj.impacts if i.surface == "box_wall"]
    assert walls and not walls[0].is_bounce
