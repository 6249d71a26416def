// The topics command's replication factor: from the cluster's size unless given, never a single
// copy on a cluster of several brokers unless asked for, never more copies than brokers.
import { describe, expect, it } from 'vitest';
import { chooseReplicationFactor, documentedMinInsyncReplicas } from '../../infra/kafka/create-topics.ts';

describe('chooseReplicationFactor', () => {
  it('defaults to min(3, brokers)', () => {
    expect([1, 2, 3, 5].map((brokers) => chooseReplicationFactor(brokers))).toEqual([1, 2, 3, 3]);
  });

  it('refuses 1 on a cluster of more than one broker unless allowed explicitly', () => {
    expect(() => chooseReplicationFactor(3, { replicationFactor: 1 })).toThrow(
      /KAFKA_ALLOW_SINGLE_REPLICA=1/,
    );
    expect(chooseReplicationFactor(3, { replicationFactor: 1, allowSingleReplica: true })).toBe(1);
    expect(chooseReplicationFactor(1, { replicationFactor: 1 })).toBe(1);
  });

  it('refuses more replicas than brokers', () => {
    expect(() => chooseReplicationFactor(1, { replicationFactor: 3 })).toThrow(/needs at least 3 brokers/);
  });

  it('documents min.insync.replicas 2 at 3 replicas or more, else 1', () => {
    expect([1, 2, 3, 4].map(documentedMinInsyncReplicas)).toEqual([1, 1, 2, 2]);
  });
});
