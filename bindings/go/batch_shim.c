/* The C half of LaunchBatch (batch_shim.h). */
#include <stdlib.h>
#include <string.h>

#include "batch_shim.h"
#include "zcalls.h"

cuabi_go_batch* cuabi_go_batch_new(size_t capacity, size_t args_capacity) {
    cuabi_go_batch* batch = calloc(1, sizeof *batch);
    if (batch == NULL) return NULL;
    batch->capacity = capacity;
    batch->args_capacity = args_capacity;
    batch->entries = calloc(capacity > 0 ? capacity : 1, sizeof *batch->entries);
    batch->args = malloc(args_capacity > 0 ? args_capacity : 1);
    batch->items = calloc(capacity > 0 ? capacity : 1, sizeof *batch->items);
    batch->configs = calloc(capacity > 0 ? capacity : 1, sizeof *batch->configs);
    if (batch->entries == NULL || batch->args == NULL || batch->items == NULL || batch->configs == NULL) {
        cuabi_go_batch_free(batch);
        return NULL;
    }
    return batch;
}

void cuabi_go_batch_free(cuabi_go_batch* batch) {
    if (batch == NULL) return;
    free(batch->entries);
    free(batch->args);
    free(batch->items);
    free(batch->configs);
    free(batch);
}

cuabi_go_failure* cuabi_go_batch_launch(cuabi_go_batch* batch, size_t count) {
    batch->submitted = 0;
    if (cuabi_go_fn.launch_batch == NULL) return cuabi_go_missing("cuabi_launch_batch");
    for (size_t i = 0; i < count; ++i) {
        const cuabi_go_batch_entry* entry = &batch->entries[i];
        cuabi_launch_item* item = &batch->items[i];
        item->kernel = (cuabi_kernel*)entry->kernel;
        /* Entries with the config of the entry before share its C config: cuabi launches a run of
         * items with one kernel and one config pointer with the kernel and stream looked up once. */
        if (i > 0 && memcmp(&entry->config, &batch->entries[i - 1].config, sizeof entry->config) == 0) {
            item->config = batch->items[i - 1].config;
        } else {
            cuabi_go_make_config(&entry->config, &batch->configs[i]);
            item->config = &batch->configs[i];
        }
        item->args = NULL;
        item->arg_count = 0;
        /* The packed form even for a kernel without parameters: a non-NULL pointer selects it. */
        item->packed = batch->args + entry->args_offset;
        item->packed_size = (size_t)entry->args_size;
    }
    cuabi_status status = cuabi_go_fn.launch_batch(batch->items, count, &batch->submitted);
    return status == CUABI_SUCCESS ? NULL : cuabi_go_capture(status, 0);
}
