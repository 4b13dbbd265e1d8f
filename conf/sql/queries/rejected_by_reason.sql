-- Rejected input records by source and reason; the total is metrics.json's rejected.
SELECT source, reason, COUNT(*) AS records
FROM rejected
GROUP BY source, reason
ORDER BY records DESC, source, reason;
