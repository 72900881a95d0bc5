// A whisper.cpp model (legacy ggml, f16) with the real tensor layout and random weights, as svc's
// test/helpers/synthetic-model.ts writes it, for machines without Node. Compute cost does not depend
// on the weights. Usage: synthetic-model OUT STATE HEADS ENC_LAYERS DEC_LAYERS MELS VOCAB
//   large-v3-turbo: 1280 20 32 4 128 51866   base.en: 512 8 6 6 80 51864
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;
static uint16_t f16pool[1 << 18];
static float f32pool[1 << 18], ones[1 << 18], zeros[1 << 18];
static void i32(int32_t v) { fwrite(&v, 4, 1, out); }
static int S;

static void tensor(const char *name, int nd, const int *shape, int fill) {  // fill: 0 random, 1 one, 2 zero
    long count = 1;
    for (int i = 0; i < nd; i++) count *= shape[i];
    int f32 = nd < 2 || !strcmp(name, "encoder.conv1.bias") || !strcmp(name, "encoder.conv2.bias") ||
              !strcmp(name, "encoder.positional_embedding") || !strcmp(name, "decoder.positional_embedding");
    i32(nd); i32((int32_t)strlen(name)); i32(f32 ? 0 : 1);
    for (int i = nd - 1; i >= 0; i--) i32(shape[i]);
    fwrite(name, 1, strlen(name), out);
    for (long off = 0; off < count; off += 1 << 18) {
        long n = count - off < (1 << 18) ? count - off : (1 << 18);
        if (!f32) fwrite(f16pool, 2, n, out);
        else fwrite(fill == 0 ? f32pool : fill == 1 ? ones : zeros, 4, n, out);
    }
}
static void t1(const char *p, const char *s, int n, int fill) { char b[256]; snprintf(b, sizeof b, "%s%s", p, s); int sh[1] = {n}; tensor(b, 1, sh, fill); }
static void norm(const char *p) { t1(p, ".weight", S, 1); t1(p, ".bias", S, 2); }
static void linear(const char *p, int o, int i, int bias) {
    char b[256]; snprintf(b, sizeof b, "%s.weight", p); int sh[2] = {o, i}; tensor(b, 2, sh, 0);
    if (bias) t1(p, ".bias", o, 2);
}
static void attention(const char *p) {
    char b[256];
    snprintf(b, sizeof b, "%s.query", p); linear(b, S, S, 1);
    snprintf(b, sizeof b, "%s.key", p); linear(b, S, S, 0);
    snprintf(b, sizeof b, "%s.value", p); linear(b, S, S, 1);
    snprintf(b, sizeof b, "%s.out", p); linear(b, S, S, 1);
}
static void block(const char *p, int cross) {
    char b[256];
    snprintf(b, sizeof b, "%s.mlp_ln", p); norm(b);
    snprintf(b, sizeof b, "%s.mlp.0", p); linear(b, 4 * S, S, 1);
    snprintf(b, sizeof b, "%s.mlp.2", p); linear(b, S, 4 * S, 1);
    snprintf(b, sizeof b, "%s.attn_ln", p); norm(b);
    snprintf(b, sizeof b, "%s.attn", p); attention(b);
    if (cross) { snprintf(b, sizeof b, "%s.cross_attn_ln", p); norm(b); snprintf(b, sizeof b, "%s.cross_attn", p); attention(b); }
}

int main(int argc, char **argv) {
    if (argc != 8) { fprintf(stderr, "usage: %s OUT STATE HEADS ENC_LAYERS DEC_LAYERS MELS VOCAB\n", argv[0]); return 2; }
    S = atoi(argv[2]); int H = atoi(argv[3]), LE = atoi(argv[4]), LD = atoi(argv[5]), M = atoi(argv[6]), V = atoi(argv[7]);
    uint32_t seed = 1;
    for (int i = 0; i < 1 << 18; i++) {
        seed = seed * 1664525u + 1013904223u;
        f32pool[i] = (float)(((double)seed / 4294967296.0 - 0.5) * 0.04); ones[i] = 1; zeros[i] = 0;
        uint32_t u; memcpy(&u, &f32pool[i], 4);
        int e = (int)((u >> 23) & 0xff) - 112;
        f16pool[i] = e <= 0 ? (u >> 16) & 0x8000 : ((u >> 16) & 0x8000) | (e << 10) | ((u & 0x7fffff) >> 13);
    }
    out = fopen(argv[1], "wb");
    if (!out) { perror(argv[1]); return 1; }
    int32_t h[] = {0x67676d6c, V, 1500, S, H, LE, 448, S, H, LD, M, 1};
    fwrite(h, 4, 12, out);
    i32(M); i32(201);
    for (int i = 0; i < M * 201; i++) { float f = 0.001f; fwrite(&f, 4, 1, out); }
    int tokens = 50256;
    i32(tokens);
    for (int i = 0; i < tokens; i++) {
        char b[16]; int n;
        if (i < 256) { b[0] = (char)i; n = 1; } else n = snprintf(b, sizeof b, " w%d", i);
        i32(n); fwrite(b, 1, n, out);
    }
    int sh2[2], sh3[3];
    sh2[0] = 1500; sh2[1] = S; tensor("encoder.positional_embedding", 2, sh2, 0);
    sh3[0] = S; sh3[1] = M; sh3[2] = 3; tensor("encoder.conv1.weight", 3, sh3, 0);
    sh2[0] = S; sh2[1] = 1; tensor("encoder.conv1.bias", 2, sh2, 2);
    sh3[0] = S; sh3[1] = S; sh3[2] = 3; tensor("encoder.conv2.weight", 3, sh3, 0);
    sh2[0] = S; sh2[1] = 1; tensor("encoder.conv2.bias", 2, sh2, 2);
    char b[64];
    for (int l = 0; l < LE; l++) { snprintf(b, sizeof b, "encoder.blocks.%d", l); block(b, 0); }
    norm("encoder.ln_post");
    sh2[0] = 448; sh2[1] = S; tensor("decoder.positional_embedding", 2, sh2, 0);
    sh2[0] = V; sh2[1] = S; tensor("decoder.token_embedding.weight", 2, sh2, 0);
    for (int l = 0; l < LD; l++) { snprintf(b, sizeof b, "decoder.blocks.%d", l); block(b, 1); }
    norm("decoder.ln");
    return fclose(out) == 0 ? 0 : 1;
}
