import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { heartbeatRequest, joinRequest, client, settle, setup, stableSingleMember, startDynamicJoin, track, SESSION_MS } from './harness.js';

describe('ClassicGroup.validateOffsetCommit', () => {
  it('accepts generation -1 commits on an Empty (simple) group', () => {
    const h = setup();
    const group = h.coordinator.getOrCreateSimpleGroup('g');
    expect(group.state).toBe('Empty');
    expect(group.protocolType).toBeNull();
    expect(group.generationId).toBe(0);
    expect(group.validateOffsetCommit('', null, -1, false, 8)).toBe(ErrorCode.NONE);
    expect(h.groupLog.records).toEqual([]); // simple groups are not persisted
  });

  it('returns COORDINATOR_NOT_AVAILABLE for a Dead group', async () => {
    const h = setup();
    const group = h.coordinator.getOrCreateSimpleGroup('g');
    await h.coordinator.deleteGroups(['g']);
    expect(group.state).toBe('Dead');
    expect(group.validateOffsetCommit('', null, -1, false, 8)).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  });

  it('checks member, instance and generation when a generation >= 0, member id or instance id is given', async () => {
    const h = setup();
    const a = await stableSingleMember(h);
    const group = h.coordinator.group('g')!;
    expect(group.validateOffsetCommit(a, null, 1, false, 8)).toBe(ErrorCode.NONE);
    expect(group.validateOffsetCommit('stranger', null, 1, false, 8)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(group.validateOffsetCommit(a, null, 0, false, 8)).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(group.validateOffsetCommit(a, null, -1, false, 8)).toBe(ErrorCode.ILLEGAL_GENERATION); // member id given
    expect(group.validateOffsetCommit('', 'unknown-instance', -1, false, 8)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    // generation >= 0 on an Empty group: there is no such member
    const simple = h.coordinator.getOrCreateSimpleGroup('simple');
    expect(simple.validateOffsetCommit('', null, 0, false, 8)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('returns FENCED_INSTANCE_ID when the instance id is bound to another member id', async () => {
    const h = setup();
    const joined = track(h.coordinator.joinGroup(joinRequest({ groupInstanceId: 'i1' }), client(5)));
    await settle();
    h.time.advance(0);
    await settle();
    const group = h.coordinator.group('g')!;
    expect(group.validateOffsetCommit('someone-else', 'i1', 1, false, 8)).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(group.validateOffsetCommit(joined.value!.memberId, 'i1', 1, true, 8)).toBe(ErrorCode.NONE);
  });

  it('refuses anonymous generation -1 commits on a non-Empty group (UNKNOWN_MEMBER_ID) unless transactional', async () => {
    const h = setup();
    await stableSingleMember(h);
    const group = h.coordinator.group('g')!;
    expect(group.validateOffsetCommit('', null, -1, false, 8)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(group.validateOffsetCommit('', null, -1, true, 8)).toBe(ErrorCode.NONE);
  });

  it('returns REBALANCE_IN_PROGRESS in CompletingRebalance for non-transactional commits only', async () => {
    const h = setup();
    const a = await startDynamicJoin(h, 'a');
    h.time.advance(0);
    const ja = await a.joined;
    const group = h.coordinator.group('g')!;
    expect(group.state).toBe('CompletingRebalance');
    expect(group.validateOffsetCommit(ja.memberId, null, 1, false, 8)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(group.validateOffsetCommit(ja.memberId, null, 1, true, 8)).toBe(ErrorCode.NONE);
  });

  it('accepts the current generation while PreparingRebalance', async () => {
    const h = setup();
    const a = await stableSingleMember(h, 'a');
    await startDynamicJoin(h, 'b');
    const group = h.coordinator.group('g')!;
    expect(group.state).toBe('PreparingRebalance');
    expect(group.validateOffsetCommit(a, null, 1, false, 8)).toBe(ErrorCode.NONE);
  });

  it('keeps the member session alive on a valid commit in Stable', async () => {
    const h = setup();
    const a = await stableSingleMember(h);
    const group = h.coordinator.group('g')!;
    h.time.advance(SESSION_MS - 1);
    expect(group.validateOffsetCommit(a, null, 1, false, 8)).toBe(ErrorCode.NONE);
    h.time.advance(SESSION_MS - 1);
    expect(group.hasMember(a)).toBe(true);
    expect((await h.coordinator.heartbeat(heartbeatRequest({ memberId: a, generationId: 1 }))).errorCode).toBe(ErrorCode.NONE);
  });

  it('validateOffsetFetch refuses only Dead groups (GROUP_ID_NOT_FOUND)', async () => {
    const h = setup();
    const group = h.coordinator.getOrCreateSimpleGroup('g');
    expect(group.validateOffsetFetch(null, -1)).toBe(ErrorCode.NONE);
    await h.coordinator.deleteGroups(['g']);
    expect(group.validateOffsetFetch(null, -1)).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });
});
