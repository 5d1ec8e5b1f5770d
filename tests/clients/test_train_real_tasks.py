"""benchmarks/train_real_tasks.py: the commands it builds and the curves it reads (the training runs
themselves need external checkouts and hours: python_bindings_docs/learning.md)."""

import importlib.util
import os

from conftest import ROOT

spec = importlib.util.spec_from_file_location("train_real_tasks",
                                              os.path.join(ROOT, "benchmarks", "train_real_tasks.py"))
trt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(trt)


def _fake_igenvs(tmp_path):
    """An IsaacGymEnvs-shaped folder with one task's two config files (values chosen here)."""
    cfg = tmp_path / "isaacgymenvs" / "cfg"
    (cfg / "task").mkdir(parents=True)
    (cfg / "train").mkdir()
    (cfg / "task" / "Walker.yaml").write_text("env:\n  numEnvs: ${resolve_default:2048,${...num_envs}}\n")
    (cfg / "train" / "WalkerPPO.yaml").write_text(
        "params:\n  config:\n    horizon_length: 32\n    minibatch_size: 16384\n")
    return str(tmp_path)


def test_igenvs_command_uses_the_task_config_and_stops_at_max_steps(tmp_path):
    root = _fake_igenvs(tmp_path)
    cmd = trt.igenvs_command(root, "Walker", None, "w", 10_000_000)
    assert not any(a.startswith("num_envs=") for a in cmd)       # the config's own env count
    assert cmd[-1] == "max_iterations=153"                       # ceil(1e7 / (2048 * 32))
    cmd = trt.igenvs_command(root, "Walker", 512, "w", None)
    # 4096 * 32 / 16384 = 8 minibatches per epoch, kept at 512 envs
    assert "num_envs=512" in cmd and "train.params.config.minibatch_size=2048" in cmd
    assert not any(a.startswith("max_iterations=") for a in cmd)


def test_legged_curve_reads_each_iteration():
    report = ""
    for it in range(3):
        report += (f"\x1b[1m Learning iteration {it}/300 \x1b[0m\n"
                   f"       Computation: 900 steps/s (collection: 40.1s, learning 7.0s)\n"
                   f"               Mean reward: {0.5 * it:.2f}\n"
                   f"       Mean episode length: {100 + it:.2f}\n"
                   f" Mean episode rew_tracking_lin_vel: {0.1 * it:.4f}\n"
                   f"           Total timesteps: {49152 * (it + 1)}\n"
                   f"            Iteration time: 47.10s\n"
                   f"                Total time: {47.1 * (it + 1):.2f}s\n")
    rows = trt.legged_curve(report)
    assert [r["iteration"] for r in rows] == [0, 1, 2]
    assert rows[2] == dict(iteration=2, reward=1.0, episode_length=102.0, rew_tracking_lin_vel=0.2,
                           env_steps=147456.0, seconds=141.3)


def test_igenvs_curve_reads_rl_games_scalars(tmp_path):
    from torch.utils.tensorboard import SummaryWriter
    w = SummaryWriter(str(tmp_path / "summaries"))
    for epoch in range(1, 4):                      # the tags rl_games' a2c_common writes per epoch
        w.add_scalar("rewards/step", 10.0 * epoch, 65536 * epoch)
        w.add_scalar("rewards/iter", 10.0 * epoch, epoch)
        w.add_scalar("rewards/time", 10.0 * epoch, 30.0 * epoch)
        w.add_scalar("episode_lengths/iter", 50.0 + epoch, epoch)
    w.close()
    rows = trt.igenvs_curve(str(tmp_path))
    assert rows[-1] == dict(epoch=3, reward=30.0, env_steps=196608, seconds=90.0, episode_length=53.0)
    assert [r["epoch"] for r in trt.igenvs_curve(str(tmp_path), seconds=60)] == [1, 2]
