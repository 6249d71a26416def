// What each local ClickHouse server is: its ports in the topology (one server, or one per shard)
// and the config.xml and users.xml written for it (listeners on 127.0.0.1 only, `default` from
// loopback only, the read-only `analyst` and `rls_api`, and the shards of the cluster topology).
import { createHash } from 'node:crypto';

// The server's own native listener sits behind the launcher's native front (native-front.c: a
// failed native login would abort clickhouse-local), on the public native port + this offset.
export const INTERNAL_TCP_OFFSET = 10;

/** The user the analytics API reads as (CLICKHOUSE_ANALYTICS_USER of the local stack's services). */
export const API_USER = 'rls_api';

/** Name of the local cluster (remote_servers) the Distributed tables of the cluster topology use. */
export const LOCAL_CLUSTER = 'rls';

/**
 * The servers of the topology: one, or one per shard (two in the cluster topology) on consecutive
 * ports. Each has its own data directory, config, logs and pid file.
 */
export function clickhouseNodes(settings) {
  const { httpPort, tcpPort, shards = 1 } = settings.clickhouse;
  return Array.from({ length: shards }, (_, i) => i + 1).map((n) => ({
    n,
    name: shards > 1 ? `clickhouse-${n}` : 'clickhouse',
    httpPort: httpPort + n - 1,
    tcpPort: tcpPort + n - 1,
    internalTcpPort: tcpPort + INTERNAL_TCP_OFFSET + n - 1,
    url: `http://127.0.0.1:${httpPort + n - 1}`,
  }));
}

/** The shards of the cluster topology, each reached on the server's own native listener (behind
 * no front: the shards log in as `default`, which cannot fail), as `default` from loopback. */
function remoteServersXml(nodes) {
  if (nodes.length < 2) return '';
  const shards = nodes
    .map(
      (node) =>
        `      <shard><replica><host>127.0.0.1</host><port>${node.internalTcpPort}</port></replica></shard>`,
    )
    .join('\n');
  return `  <remote_servers>
    <${LOCAL_CLUSTER}>
${shards}
    </${LOCAL_CLUSTER}>
  </remote_servers>
`;
}

/** config.xml of one server. `settings.clickhouse.extraConfig(node)`, when given (the replicated
 * test: Keeper, macros, its own remote_servers), replaces the shards' remote_servers. */
export function configXml(settings, node, p) {
  const { httpPort, tcpPort, internalTcpPort } = node;
  return `<?xml version="1.0"?>
<clickhouse>
  <logger>
    <level>information</level>
    <log>${p.serverLog}</log>
    <errorlog>${p.serverErrLog}</errorlog>
    <size>50M</size>
    <count>2</count>
    <console>0</console>
  </logger>
  <!-- Loopback only: listeners of clickhouse-local serve whoever can connect. -->
  <listen_host>127.0.0.1</listen_host>
  <http_port>${httpPort}</http_port>
  <!-- Behind the launcher's native front, which owns ${tcpPort} (native-front.c says why). -->
  <tcp_port>${internalTcpPort}</tcp_port>
  <!-- Above the 2.5 s idle-socket TTL of @clickhouse/client, so pooled sockets are not reset
       under the client; low enough that idle connections do not pile up. -->
  <keep_alive_timeout>10</keep_alive_timeout>
  <!-- Two cores: more concurrent queries only queue on CPU and multiply memory. -->
  <max_concurrent_queries>64</max_concurrent_queries>
  <!-- Small caches: this runs beside Kafka, Redis and the services on a small machine. -->
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>0</uncompressed_cache_size>
  <max_server_memory_usage_to_ram_ratio>0.5</max_server_memory_usage_to_ram_ratio>
  <path>${p.data}</path>
  <tmp_path>${p.tmp}</tmp_path>
  <user_files_path>${p.userFiles}</user_files_path>
  <!-- BACKUP/RESTORE ... File('<name>') write and read here only (npm run backup / restore move
       the finished backup between here and the operator's directory). -->
  <backups>
    <allowed_path>${p.backups}</allowed_path>
  </backups>
  <users_config>${p.users}</users_config>
  <default_profile>default</default_profile>
  <timezone>UTC</timezone>
${settings.clickhouse.extraConfig?.(node) ?? remoteServersXml(clickhouseNodes(settings))}</clickhouse>
`;
}

export function analystPasswordSha256(password) {
  return createHash('sha256').update(password).digest('hex');
}

export function usersXml(settings) {
  const localhost = '<networks><ip>::1</ip><ip>127.0.0.1</ip></networks>';
  // analyst: readonly=2 (no writes or DDL, but per-query settings such as output formats that
  // clients send), capped by constraints so a query cannot raise its own limits: each has a <min>
  // too, since 0 means "unlimited" for these settings. The user's limits (concurrent queries,
  // memory of all its queries) are <const/>: the server checks them with the query's own settings,
  // so a query that could set them could lift them. max_threads 2 of the machine's cores: a
  // data engineer's heavy queries leave the API's queries CPU. SELECT on every database named
  // rls* (namespaced test databases are rls_<ns>) and on system (system.columns).
  // rls_api: the analytics API (read-only too), its own limit of concurrent queries above the
  // API's own admission (ANALYTICS_MAX_IN_FLIGHT, 8 per process), so that it bounds the API
  // processes together without refusing what one admits.
  return `<?xml version="1.0"?>
<clickhouse>
  <profiles>
    <default>
      <max_memory_usage>4000000000</max_memory_usage>
    </default>
    <analyst>
      <readonly>2</readonly>
      <max_execution_time>60</max_execution_time>
      <max_memory_usage>2000000000</max_memory_usage>
      <max_result_bytes>500000000</max_result_bytes>
      <max_threads>2</max_threads>
      <max_concurrent_queries_for_user>4</max_concurrent_queries_for_user>
      <max_memory_usage_for_user>3000000000</max_memory_usage_for_user>
      <constraints>
        <max_execution_time><min>1</min><max>60</max></max_execution_time>
        <max_memory_usage><min>1</min><max>2000000000</max></max_memory_usage>
        <max_result_bytes><min>1</min><max>500000000</max></max_result_bytes>
        <max_threads><min>1</min><max>2</max></max_threads>
        <max_concurrent_queries_for_user><const/></max_concurrent_queries_for_user>
        <max_memory_usage_for_user><const/></max_memory_usage_for_user>
      </constraints>
    </analyst>
    <api>
      <profile>default</profile>
      <readonly>2</readonly>
      <max_execution_time>30</max_execution_time>
      <max_concurrent_queries_for_user>24</max_concurrent_queries_for_user>
      <constraints>
        <max_execution_time><min>1</min><max>30</max></max_execution_time>
        <max_concurrent_queries_for_user><const/></max_concurrent_queries_for_user>
      </constraints>
    </api>
  </profiles>
  <users>
    <default>
      <password></password>
      ${localhost}
      <profile>default</profile>
      <quota>default</quota>
    </default>
    <analyst>
      <password_sha256_hex>${analystPasswordSha256(settings.clickhouse.analystPassword)}</password_sha256_hex>
      ${localhost}
      <profile>analyst</profile>
      <quota>default</quota>
      <grants>
        <query>GRANT SELECT ON rls*.*</query>
        <query>GRANT SELECT ON system.*</query>
      </grants>
    </analyst>
    <${API_USER}>
      <password></password>
      ${localhost}
      <profile>api</profile>
      <quota>default</quota>
      <grants>
        <query>GRANT SELECT ON rls*.*</query>
      </grants>
    </${API_USER}>
  </users>
  <quotas>
    <default>
      <interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval>
    </default>
  </quotas>
</clickhouse>
`;
}
