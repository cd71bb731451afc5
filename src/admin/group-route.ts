/** The two forms of the admin API's routes about one group (`GET /groups/{groupId}...`, `GET /group...?groupId=`). */
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * A route about one group, in two forms: `/groups/{groupId}<suffix>`, and `/group<suffix>?groupId=`
 * for any id, since URL parsing folds the dot segments of a path (also `%2e`, per the WHATWG URL
 * standard): no path can name the valid Kafka group ids `.` and `..`.
 */
export function groupRoute(app: FastifyInstance, suffix: string, answer: (groupId: string, reply: FastifyReply) => unknown): void {
  app.get<{ Params: { groupId: string } }>(`/groups/:groupId${suffix}`, async (req, reply) => answer(req.params.groupId, reply));
  app.get<{ Querystring: { groupId?: string | string[] } }>(`/group${suffix}`, async (req, reply) => {
    const groupId = req.query.groupId;
    if (typeof groupId !== 'string') return reply.code(400).send({ statusCode: 400, error: 'Bad Request', message: 'groupId (one query parameter) is required' });
    return answer(groupId, reply);
  });
}
