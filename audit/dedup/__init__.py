"""Duplicates, once each: every dedup idea of the job, the sidecar, bench and lookup lives here.

    minhash      MinHash signatures of shingle hashes, band keys, the `minhash_bands` column
    rule         the near-duplicate rule: candidates by shared band keys (exact duplicates step
                 aside), confirmation by shared bands, the Jaccard estimate, clusters resolved
                 in rounds around their earliest record
    exact        the exact-duplicate rule and the input order both rules keep the earliest by
    partition    the partition hash of every key shuffle
    components   connected components: union-find in one process, large-star/small-star rounds
                 over Ray Data partitions
    steps        the global pass as per-partition functions over Arrow tables: the shuffled run
                 and the one-partition run call the very same functions

The job's pass (audit.job.global_dedup) only moves tables between these steps.
"""
