/* A shared library without cuabi_get_proc_address: not libcuabi at all. */
int not_cuabi(void) { return 0; }
