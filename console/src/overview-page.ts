/** `#/`: brokers, topics and groups. */
import { api } from './api.js';
import { bytes, fill, h, table } from './dom.js';
import type { Overview } from './types.js';
import type { Page } from './page.js';

export function overviewPage(root: HTMLElement): Page {
  return {
    wants: (notice) => notice.overview || notice.groups.length > 0,
    async refresh() {
      const o = await api.get<Overview>('/overview');
      fill(
        root,
        h('h1', {}, 'Overview'),
        h('p', { class: 'meta' }, `bootstrap ${o.bootstrap} · cluster ${o.clusterId} · clock ${o.clock.mode} ${o.clock.now}`),
        h('h2', {}, 'Brokers'),
        table('brokers', ['id', 'address', 'status'], o.brokers.map((b) => [b.id, `${b.host}:${b.port}`, h('span', { class: b.up ? 'ok' : 'bad' }, b.up ? 'up' : 'down')])),
        h('h2', {}, 'Topics'),
        table(
          'topics',
          ['topic', 'partitions', 'log start - end offsets', 'size'],
          o.topics.map((t) => [t.name, t.partitions.length, t.partitions.map((p) => `p${p.partition}: ${p.logStartOffset}-${p.logEndOffset}`).join(', '), bytes(t.sizeBytes)]),
          'no topics',
        ),
        h('h2', {}, 'Groups'),
        table(
          'groups',
          ['group', 'type', 'state', 'protocol / assignor', 'members', 'total lag'],
          o.groups.map((g) => [h('a', { href: `#/groups/${encodeURIComponent(g.groupId)}` }, g.groupId), g.type, g.state, g.protocolOrAssignor ?? '-', g.members, g.totalLag]),
          'no groups',
        ),
      );
    },
  };
}
