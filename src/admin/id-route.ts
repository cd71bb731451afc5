/**
 * The two forms of the admin API's routes about one group or transactional id
 * (`GET /groups/{groupId}...` and `GET /group...?groupId=`; `/transactions/{transactionalId}` and
 * `/transaction?transactionalId=`).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';

/** One kind of id: its collection path (`/groups`), single path (`/group`) and name (`groupId`). */
interface IdKind {
  readonly collection: string;
  readonly single: string;
  readonly param: string;
}

const GROUP: IdKind = { collection: '/groups', single: '/group', param: 'groupId' };
const TRANSACTION: IdKind = { collection: '/transactions', single: '/transaction', param: 'transactionalId' };

/**
 * A route about one id, in two forms: `<collection>/{id}<suffix>`, and `<single><suffix>?<param>=`
 * for any id, since URL parsing folds the dot segments of a path (also `%2e`, per the WHATWG URL
 * standard): no path can name the valid Kafka ids `.` and `..` (group ids and transactional ids
 * may be any non-empty string).
 */
function idRoute(app: FastifyInstance, kind: IdKind, suffix: string, answer: (id: string, reply: FastifyReply) => unknown): void {
  app.get<{ Params: Record<string, string> }>(`${kind.collection}/:${kind.param}${suffix}`, async (req, reply) => answer(req.params[kind.param]!, reply));
  app.get<{ Querystring: Record<string, string | string[] | undefined> }>(`${kind.single}${suffix}`, async (req, reply) => {
    const id = req.query[kind.param];
    if (typeof id !== 'string') return reply.code(400).send({ statusCode: 400, error: 'Bad Request', message: `${kind.param} (one query parameter) is required` });
    return answer(id, reply);
  });
}

/** `/groups/{groupId}<suffix>` and `/group<suffix>?groupId=`. */
export function groupRoute(app: FastifyInstance, suffix: string, answer: (groupId: string, reply: FastifyReply) => unknown): void {
  idRoute(app, GROUP, suffix, answer);
}

/** `/transactions/{transactionalId}<suffix>` and `/transaction<suffix>?transactionalId=`. */
export function transactionRoute(app: FastifyInstance, suffix: string, answer: (transactionalId: string, reply: FastifyReply) => unknown): void {
  idRoute(app, TRANSACTION, suffix, answer);
}
