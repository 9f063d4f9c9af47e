/* copy_bw.c - memory bandwidth of a large memcpy on N threads.
 *
 * Each thread copies its share of a buffer of BYTES bytes into another;
 * bandwidth counts bytes read plus bytes written (2 * BYTES per copy), as
 * tile-jit's "tensor bytes read + written" does. Pages are first touched by
 * the thread that copies them. Prints the median of REPS timed copies
 * after one warm-up:
 *
 *   copy_bw THREADS BYTES REPS  ->  "copy: median 12.345 ms, 43.21 GB/s"
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t Bytes;
static int Threads;
static char *Src, *Dst;
static pthread_barrier_t Start, Done;
static int Reps;

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + T.tv_nsec * 1e-9;
}

static void *worker(void *Arg) {
  size_t I = (size_t)Arg, Share = (Bytes / Threads + 63) / 64 * 64;
  size_t Lo = I * Share, Hi = Lo + Share < Bytes ? Lo + Share : Bytes;
  if (Lo < Hi) {
    memset(Src + Lo, (int)I + 1, Hi - Lo);
    memset(Dst + Lo, 0, Hi - Lo);
  }
  for (int R = 0; R <= Reps; ++R) {
    pthread_barrier_wait(&Start);
    if (Lo < Hi)
      memcpy(Dst + Lo, Src + Lo, Hi - Lo);
    pthread_barrier_wait(&Done);
  }
  return NULL;
}

static int cmp(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: copy_bw THREADS BYTES REPS\n");
    return 1;
  }
  Threads = atoi(argv[1]);
  Bytes = strtoull(argv[2], NULL, 10);
  Reps = atoi(argv[3]);
  if (Threads < 1 || Bytes < 64 || Reps < 1) {
    fprintf(stderr, "copy_bw: bad arguments\n");
    return 1;
  }
  Src = aligned_alloc(64, (Bytes + 63) / 64 * 64);
  Dst = aligned_alloc(64, (Bytes + 63) / 64 * 64);
  if (!Src || !Dst) {
    fprintf(stderr, "copy_bw: cannot allocate 2 x %zu bytes\n", Bytes);
    return 1;
  }
  pthread_barrier_init(&Start, NULL, Threads + 1);
  pthread_barrier_init(&Done, NULL, Threads + 1);
  pthread_t *T = malloc(sizeof(pthread_t) * Threads);
  for (int I = 0; I < Threads; ++I)
    pthread_create(&T[I], NULL, worker, (void *)(size_t)I);
  double *Times = malloc(sizeof(double) * Reps);
  for (int R = 0; R <= Reps; ++R) {
    double T0 = now();
    pthread_barrier_wait(&Start);
    pthread_barrier_wait(&Done);
    if (R > 0) /* the first copy is the warm-up */
      Times[R - 1] = now() - T0;
  }
  for (int I = 0; I < Threads; ++I)
    pthread_join(T[I], NULL);
  qsort(Times, Reps, sizeof(double), cmp);
  double Med = Times[Reps / 2];
  printf("copy: median %.3f ms, %.2f GB/s\n", Med * 1e3, 2.0 * Bytes / Med / 1e9);
  return 0;
}
