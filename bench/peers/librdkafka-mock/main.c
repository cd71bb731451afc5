/*
 * A one-broker librdkafka mock cluster for `npm run bench`: the librdkafka shared library bundled
 * in the confluent-kafka wheel (.venv-ci), whose headers the wheel does not ship, so the few
 * functions used are declared here from librdkafka's public rdkafka.h / rdkafka_mock.h.
 * Prints `librdkafka-mock <version> ready on HOST:PORT` once listening; runs until SIGTERM/SIGINT.
 *
 *   librdkafka-mock [-heartbeat-interval-ms N] [-initial-rebalance-delay-ms N] [-topic NAME:PARTITIONS]...
 *
 * The mock keeps everything in memory (no data directory, no flush policy) and has no
 * CreateTopics: the topics a benchmark uses are created here (rd_kafka_mock_topic_create).
 */
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rd_kafka_s rd_kafka_t;
typedef struct rd_kafka_conf_s rd_kafka_conf_t;
typedef struct rd_kafka_mock_cluster_s rd_kafka_mock_cluster_t;
typedef enum { RD_KAFKA_PRODUCER, RD_KAFKA_CONSUMER } rd_kafka_type_t;
typedef enum { RD_KAFKA_CONF_UNKNOWN = -2, RD_KAFKA_CONF_INVALID = -1, RD_KAFKA_CONF_OK = 0 } rd_kafka_conf_res_t;

const char *rd_kafka_version_str(void);
rd_kafka_conf_t *rd_kafka_conf_new(void);
rd_kafka_conf_res_t rd_kafka_conf_set(rd_kafka_conf_t *conf, const char *name, const char *value, char *errstr, size_t errstr_size);
rd_kafka_t *rd_kafka_new(rd_kafka_type_t type, rd_kafka_conf_t *conf, char *errstr, size_t errstr_size);
void rd_kafka_destroy(rd_kafka_t *rk);
rd_kafka_mock_cluster_t *rd_kafka_mock_cluster_new(rd_kafka_t *rk, int broker_cnt);
void rd_kafka_mock_cluster_destroy(rd_kafka_mock_cluster_t *mcluster);
const char *rd_kafka_mock_cluster_bootstraps(const rd_kafka_mock_cluster_t *mcluster);
void rd_kafka_mock_set_group_consumer_heartbeat_interval_ms(rd_kafka_mock_cluster_t *mcluster, int ms);
void rd_kafka_mock_group_initial_rebalance_delay_ms(rd_kafka_mock_cluster_t *mcluster, int32_t delay_ms);
int rd_kafka_mock_topic_create(rd_kafka_mock_cluster_t *mcluster, const char *topic, int partition_cnt, int replication_factor);

#define MAX_TOPICS 64

int main(int argc, char **argv) {
        int heartbeat_interval_ms = -1;
        int initial_rebalance_delay_ms = -1;
        const char *topics[MAX_TOPICS];
        int partitions[MAX_TOPICS];
        int topic_cnt = 0;
        for (int i = 1; i < argc; i++) {
                char *colon;
                if (!strcmp(argv[i], "-heartbeat-interval-ms") && i + 1 < argc) {
                        heartbeat_interval_ms = atoi(argv[++i]);
                } else if (!strcmp(argv[i], "-initial-rebalance-delay-ms") && i + 1 < argc) {
                        initial_rebalance_delay_ms = atoi(argv[++i]);
                } else if (!strcmp(argv[i], "-topic") && i + 1 < argc && topic_cnt < MAX_TOPICS &&
                           (colon = strrchr(argv[i + 1], ':')) != NULL) {
                        *colon = '\0';
                        topics[topic_cnt] = argv[++i];
                        partitions[topic_cnt++] = atoi(colon + 1);
                } else {
                        fprintf(stderr, "usage: %s [-heartbeat-interval-ms N] [-initial-rebalance-delay-ms N] [-topic NAME:PARTITIONS]...\n", argv[0]);
                        return 2;
                }
        }

        /* Blocked before librdkafka starts its threads (they inherit the mask), so sigwait below
         * is the only receiver and none is lost in between. */
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGINT);
        pthread_sigmask(SIG_BLOCK, &set, NULL);

        /* The mock cluster hangs off a client handle; this one never connects anywhere. */
        char errstr[512];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        if (rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
                fprintf(stderr, "conf: %s\n", errstr);
                return 1;
        }
        rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
        if (!rk) {
                fprintf(stderr, "rd_kafka_new: %s\n", errstr);
                return 1;
        }
        rd_kafka_mock_cluster_t *mcluster = rd_kafka_mock_cluster_new(rk, 1);
        if (!mcluster) {
                fprintf(stderr, "rd_kafka_mock_cluster_new failed\n");
                return 1;
        }
        if (heartbeat_interval_ms >= 0)
                rd_kafka_mock_set_group_consumer_heartbeat_interval_ms(mcluster, heartbeat_interval_ms);
        if (initial_rebalance_delay_ms >= 0)
                rd_kafka_mock_group_initial_rebalance_delay_ms(mcluster, initial_rebalance_delay_ms);
        for (int i = 0; i < topic_cnt; i++) {
                if (rd_kafka_mock_topic_create(mcluster, topics[i], partitions[i], 1) != 0) {
                        fprintf(stderr, "rd_kafka_mock_topic_create %s failed\n", topics[i]);
                        return 1;
                }
        }

        printf("librdkafka-mock %s ready on %s\n", rd_kafka_version_str(), rd_kafka_mock_cluster_bootstraps(mcluster));
        fflush(stdout);
        int sig;
        sigwait(&set, &sig);
        rd_kafka_mock_cluster_destroy(mcluster);
        rd_kafka_destroy(rk);
        return 0;
}
