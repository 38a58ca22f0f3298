// Built with GCC's -fsanitize=thread: four threads each allocate 100 bytes
// and copy 10 into them with memcpy; prints "ok".
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void* run(void* from) {
  char* p = malloc(100);
  memcpy(p, from, 10);
  free(p);
  return NULL;
}

int main(void) {
  pthread_t t[4];
  for (int i = 0; i < 4; ++i) pthread_create(&t[i], NULL, run, "0123456789");
  for (int i = 0; i < 4; ++i) pthread_join(t[i], NULL);
  puts("ok");
  return 0;
}
