/**
 * Kafka's `UniformAssignor` ("uniform", the default server assignor): balanced and sticky.
 * Delegates on the group's subscription type, as Kafka does (the type is computed by the
 * group from its members' subscriptions, not re-derived here).
 */
import { assignUniformHeterogeneous } from './uniform-heterogeneous.js';
import { assignUniformHomogeneous } from './uniform-homogeneous.js';
import type {
  ConsumerGroupPartitionAssignor,
  GroupAssignment,
  GroupSpec,
  SubscribedTopicDescriber,
} from './types.js';

export const uniformAssignor: ConsumerGroupPartitionAssignor = {
  name: 'uniform',
  assign(group: GroupSpec, topics: SubscribedTopicDescriber): GroupAssignment {
    if (group.members.size === 0) return { members: new Map() };
    return group.subscriptionType === 'HOMOGENEOUS'
      ? assignUniformHomogeneous(group, topics)
      : assignUniformHeterogeneous(group, topics);
  },
};
