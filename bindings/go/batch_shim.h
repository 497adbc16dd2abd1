/*
 * The C half of LaunchBatch: scratch that C owns (malloc), which Go fills with plain integers and
 * bytes -- kernel and stream handles as uintptr_t, configs without pointers, packed arguments --
 * so that no Go pointer ever crosses, and one call that turns the entries into cuabi_launch_items
 * and launches them with cuabi_launch_batch.
 */
#ifndef CUABI_GO_BATCH_SHIM_H
#define CUABI_GO_BATCH_SHIM_H

#include "shim.h"

/* One launch as Go writes it: the kernel, its config, and where its packed arguments lie in the
 * batch's argument bytes. */
typedef struct cuabi_go_batch_entry {
    uintptr_t kernel;
    cuabi_go_launch_config config;
    uint64_t args_offset;
    uint64_t args_size;
} cuabi_go_batch_entry;

/* The scratch: `capacity` entries (and as many C items and configs), `args_capacity` bytes of
 * packed arguments. Go writes entries[0..count) and args; the C side writes the rest. */
typedef struct cuabi_go_batch {
    size_t capacity;
    size_t args_capacity;
    cuabi_go_batch_entry* entries;
    unsigned char* args;
    cuabi_launch_item* items;
    cuabi_launch_config* configs;
    size_t submitted; /* written by cuabi_go_batch_launch, so that no Go pointer crosses */
} cuabi_go_batch;

/* NULL when the memory cannot be allocated. */
cuabi_go_batch* cuabi_go_batch_new(size_t capacity, size_t args_capacity);
void cuabi_go_batch_free(cuabi_go_batch* batch);

/* cuabi_launch_batch over entries[0..count); batch->submitted as the C function writes
 * *out_submitted (on a refusal: the refused item's index). */
cuabi_go_failure* cuabi_go_batch_launch(cuabi_go_batch* batch, size_t count);

#endif
