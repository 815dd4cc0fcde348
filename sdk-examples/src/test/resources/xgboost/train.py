"""Distributed XGBoost on Kubeflow's XGBoostJob, as upstream's xgboost-dist example runs it:
rank 0 (the Master) starts XGBoost's tracker on MASTER_ADDR:MASTER_PORT, every rank joins the
collective with its RANK, trains on its own shard, and the allreduce makes one model."""
import argparse
import hashlib
import logging
import os
import sys

import numpy as np
import xgboost as xgb
from xgboost import collective
from xgboost.tracker import RabitTracker

logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                    format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("xgboost-dist")


def shard(rank, rows=2000):
    rng = np.random.default_rng(1000 + rank)
    x = rng.normal(size=(rows, 8))
    y = (x[:, 0] + 0.5 * x[:, 1] - x[:, 2] > 0).astype(np.float32)
    return x, y


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--eta", type=float, default=0.3)
    parser.add_argument("--max-depth", type=int, default=3)
    parser.add_argument("--world-size", type=int, default=0,
                        help="override WORLD_SIZE (a hard-coded world is a classic mistake)")
    args = parser.parse_args()
    rank = int(os.environ["RANK"])
    world = args.world_size or int(os.environ["WORLD_SIZE"])
    host, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
    log.info("rank %d of %d, tracker at %s:%d", rank, world, host, port)
    tracker = None
    if rank == 0:
        tracker = RabitTracker(host_ip=host, n_workers=world, port=port, sortby="task")
        tracker.start(world)
    env = {"DMLC_TRACKER_URI": host, "DMLC_TRACKER_PORT": port, "DMLC_TASK_ID": str(rank)}
    with collective.CommunicatorContext(**env):
        x, y = shard(collective.get_rank())
        params = {"objective": "binary:logistic", "tree_method": "hist",
                  "max_depth": args.max_depth, "eta": args.eta}
        booster = xgb.train(params, xgb.DMatrix(x, label=y), num_boost_round=args.rounds)
        predictions = booster.predict(xgb.DMatrix(x))
        accuracy = float(((predictions > 0.5) == y).mean())
        digest = hashlib.sha256(booster.save_raw("json")).hexdigest()[:16]
        print(f"rank={collective.get_rank()} world={collective.get_world_size()} "
              f"accuracy={accuracy:.4f} model={digest}", flush=True)
    if tracker is not None:
        tracker.join()


if __name__ == "__main__":
    main()
