package io.orderflow.gateway.batches;

import io.orderflow.schemas.batches.BatchRecord;
import io.orderflow.schemas.json.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** A batch as the API shows it (the {@code Batch} schema of the OpenAPI document). */
final class BatchAnswers {

    private BatchAnswers() {
    }

    /** The batch; with {@code failures}, the orders it could not act on (the first ones, with their reasons). */
    static ObjectNode of(Batches.Batch batch, boolean failures) {
        BatchRecord.Definition definition = batch.definition();
        BatchRecord.Progress progress = batch.current();
        ObjectNode answer = Json.object();
        answer.put("id", definition.batchId());
        answer.put("state", progress.state());
        answer.put("phase", progress.phase());
        JsonNode action = Json.tree(definition.action());
        if (action instanceof ObjectNode object) {
            object.remove("flow"); // a migration's resolved version: its graph is the flow's, not the batch's
        }
        answer.set("action", action);
        if (definition.filter() != null) {
            answer.set("filter", Json.tree(definition.filter()));
        } else {
            answer.put("picked", batch.picked());
        }
        answer.put("rate", definition.rate());
        answer.put("matched", progress.matched());
        answer.put("done", progress.done());
        answer.put("failed", progress.failed());
        if (failures) {
            answer.set("failures", Json.tree(progress.failures()));
        }
        answer.put("capped", progress.capped());
        answer.put("createdAt", definition.createdAt());
        answer.put("createdBy", definition.createdBy());
        answer.put("updatedAt", progress.updatedAt());
        if (progress.endedAt() != null) {
            answer.put("endedAt", progress.endedAt());
        }
        if (progress.stoppedBy() != null) {
            answer.put("stoppedBy", progress.stoppedBy());
        }
        if (batch.stop() != null) {
            answer.put("stopRequestedAt", batch.stop().at());
            answer.put("stopRequestedBy", batch.stop().by());
        }
        return answer;
    }
}
