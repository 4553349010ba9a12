#!/usr/bin/python3
"""Shuffle quality of pinshard's epoch orders beside MosaicML Streaming's py1e, measured (issue 27).

For each size, one epoch's order of each pinshard order (random, quasi-random, sequential: the loader's EpochPlan,
written by EpochOrderDump from the loader's test classes), Streaming's py1e shuffle with its one-node defaults
(num_canonical_nodes 1, shuffle_block_size max(4,000,000 // 1, 1 << 18) = 4,000,000; and with the block 1 << 18,
the default it falls to at 16 or more canonical nodes) and numpy's uniform
permutation (the ideal), all over the same layout: RECORDS records in shards of equal size, ascending. Statistics
of the order as a sequence of record ids:
  * |d|: the absolute difference between the record ids at neighbouring positions, its mean and percentiles;
  * Streaming's entropy measure (simulation/core/shuffle_quality.py in mosaicml/streaming): the Shannon entropy
    (bits) of the distribution of |d| over record ids ("sample entropy") and over shard ids ("shard entropy"),
    and its quality figure, their harmonic mean;
  * shards per block: the mean number of distinct shards in each run of BLOCK (65,536) consecutive positions, what
    a loader reading that far ahead keeps open (the locality the entropy does not show).
Streaming's py1e.py and py1s.py are read from the git mirror (MIRROR, default /work/.mirror/mosaicml+streaming/repo;
PyPI is unreachable here) and loaded as modules; only numpy is needed. Prints a Markdown table.

Usage: /usr/bin/python3 scripts/shuffle-quality.py [RECORDS:SHARDS ...]   (default 1000000:100 100000000:10000)
Run it from outside the repository root (the repository's torch/ folder would shadow the torch package).
Env: MIRROR, SEED (default 27), EPOCH (default 0), KEEP_JAVA (reuse the class path of an earlier run).
"""
import importlib.util
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIRROR = os.environ.get('MIRROR', '/work/.mirror/mosaicml+streaming/repo')
SEED = int(os.environ.get('SEED', '27'))
EPOCH = int(os.environ.get('EPOCH', '0'))
PERCENTILES = (1, 10, 50, 90, 99)
BLOCK = 65_536
BATCH = 256  # the loader's default batch: how many shards one batch draws from


def streaming_py1e(scratch):
    """Streaming's get_shuffle_py1e, loaded from the mirror's py1e.py and the py1s.py it imports."""
    package = os.path.join(scratch, 'streaming', 'base', 'shuffle')
    os.makedirs(package)
    for folder in ('streaming', 'streaming/base', 'streaming/base/shuffle'):
        open(os.path.join(scratch, folder, '__init__.py'), 'w').close()
    for name in ('py1s', 'py1e'):
        source = subprocess.run(['git', '--git-dir', MIRROR, 'show', f'HEAD:streaming/base/shuffle/{name}.py'],
                                check=True, capture_output=True).stdout
        with open(os.path.join(package, name + '.py'), 'wb') as out:
            out.write(source)
    sys.path.insert(0, scratch)
    spec = importlib.util.spec_from_file_location('streaming.base.shuffle.py1e', os.path.join(package, 'py1e.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.get_shuffle_py1e


def java_command():
    classpath = subprocess.run([os.path.join(ROOT, 'scripts/module-classpath.sh'), '--tests', 'loader'], check=True,
                               capture_output=True, text=True).stdout.strip()
    flags = subprocess.run([os.path.join(ROOT, 'scripts/jvm-flags.sh'), 'java'], check=True, capture_output=True,
                           text=True).stdout.split()
    return ['java', *flags, '-cp', classpath, 'io.pinshard.loader.EpochOrderDump']


def pinshard_order(java, records, shards, order, scratch, interleave=1):
    path = os.path.join(scratch, f'{order}-{records}.i32')
    subprocess.run([*java, str(records), str(shards), order, str(SEED), str(EPOCH), path, str(interleave)],
                   check=True, stderr=subprocess.DEVNULL)
    ids = np.fromfile(path, dtype='<i4')
    os.remove(path)
    return ids


def entropy(values):
    """Streaming's get_entropy: Shannon entropy (bits) of the distribution of |neighbour differences|."""
    freqs = np.bincount(np.abs(np.diff(values)))  # int32 ids: differences fit, and half the memory of int64
    freqs = freqs[freqs != 0]
    probs = freqs / (values.shape[0] - 1)
    return max(0.0, float(-np.sum(probs * np.log2(probs))))  # one distinct difference: 0, not -0


def statistics(ids, per_shard):
    ascending = np.sort(ids)
    if ascending[0] != 0 or not np.all(np.diff(ascending) == 1):
        raise SystemExit('not a permutation of the records')
    del ascending
    diffs = np.abs(np.diff(ids))
    sample = entropy(ids)
    shard = entropy(ids // per_shard)
    quality = 2 * sample * shard / (sample + shard) if sample + shard > 0 else 0.0
    shard_ids = ids // per_shard
    blocks = [np.unique(shard_ids[b:b + BLOCK]).shape[0] for b in range(0, shard_ids.shape[0], BLOCK)]
    batches = shard_ids[:shard_ids.shape[0] // BATCH * BATCH].reshape(-1, BATCH)
    batches = np.sort(batches, axis=1)
    per_batch = 1 + np.count_nonzero(np.diff(batches, axis=1), axis=1)
    return {'shards_per_batch': float(per_batch.mean()), 'shards_per_block': float(np.mean(blocks)),'mean': float(diffs.mean(dtype=np.float64)), 'percentiles': np.percentile(diffs, PERCENTILES),
            'sample': sample, 'shard': shard, 'quality': quality}


def main():
    sizes = sys.argv[1:] or ['1000000:100', '100000000:10000']
    print(f'seed {SEED}, epoch {EPOCH}; |d| = |record id at position p+1 - record id at p|; '
          f'entropies in bits (Streaming simulator: sample, shard, harmonic mean)')
    print()
    print('| records | shards | order | mean abs d | ' + ' | '.join(f'p{q}' for q in PERCENTILES)
          + f' | sample entropy | shard entropy | Streaming quality | shards per batch of {BATCH}'
          + f' | shards per {BLOCK:,} positions | seconds to make the order |')
    print('|---|---|---|---|' + '---|' * len(PERCENTILES) + '---|---|---|---|---|---|')
    with tempfile.TemporaryDirectory(prefix='shuffle-quality-') as scratch:
        py1e = streaming_py1e(os.path.join(scratch, 'modules'))
        java = java_command()
        for size in sizes:
            records, shards = (int(v) for v in size.split(':'))
            per_shard = -(-records // shards)
            shard_sizes = np.array([min(per_shard, records - s * per_shard)
                                    for s in range(-(-records // per_shard))], dtype=np.int64)
            orders = [('pinshard random', lambda: pinshard_order(java, records, shards, 'random', scratch)),
                      ('pinshard quasi-random (window 1,024, one at a time)',
                       lambda: pinshard_order(java, records, shards, 'quasi-random', scratch, 1)),
                      ('pinshard quasi-random (window 1,024, 4 interleaved)',
                       lambda: pinshard_order(java, records, shards, 'quasi-random', scratch, 4)),
                      ('pinshard quasi-random (window 1,024, 16 interleaved: the most auto chooses)',
                       lambda: pinshard_order(java, records, shards, 'quasi-random', scratch, 16)),
                      ('pinshard sequential', lambda: pinshard_order(java, records, shards, 'sequential', scratch)),
                      ('Streaming py1e (1 canonical node, block 4,000,000: its one-node default)',
                       lambda: py1e(shard_sizes, 1, SEED, EPOCH, 4_000_000).astype(np.int32)),
                      ('Streaming py1e (1 canonical node, block 262,144: its smallest default)',
                       lambda: py1e(shard_sizes, 1, SEED, EPOCH, 1 << 18).astype(np.int32)),
                      ('numpy uniform permutation', lambda: np.random.default_rng(SEED).permutation(records)
                       .astype(np.int32))]
            for name, make in orders:
                start = time.time()
                ids = make()
                seconds = time.time() - start
                s = statistics(ids, per_shard)
                del ids
                print(f'| {records:,} | {len(shard_sizes):,} | {name} | {s["mean"]:,.0f} | '
                      + ' | '.join(f'{v:,.0f}' for v in s['percentiles'])
                      + f' | {s["sample"]:.2f} | {s["shard"]:.2f} | {s["quality"]:.2f} | {s["shards_per_batch"]:.1f}'
                      + f' | {s["shards_per_block"]:,.0f}'
                      + f' | {seconds:.1f} |', flush=True)


if __name__ == '__main__':
    main()
